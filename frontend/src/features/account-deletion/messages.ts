/** The deletion flow's messages, word for word; the code is 6 digits and expires in 300 s. */
export const DELETION_MSG = {
  sendFailed: 'Failed to send OTP. Please check your email address.',
  invalidCode: 'Invalid OTP code. Please try again.',
  deleteFailed: 'Failed to delete account. Please try again.',
  network: 'Network error. Please try again.',
  secondFactorLead: 'This account has two-factor sign-in: confirm its deletion as you sign in.',
  passkeyFailed: 'The passkey could not confirm the deletion. Please try again.',
} as const;

export const DELETION_CODE_SECONDS = 300;
export const DELETION_CODE_LENGTH = 6;

export type DeletionStep = 'email' | 'otp' | 'confirm' | 'success';
