/** The auth screens' messages, word for word. */
export const MSG = {
  emailRequired: 'Email is required',
  emailInvalid: 'Email is invalid',
  passwordRequired: 'Password is required',
  passwordShort: 'Password must be at least 8 characters',
  usernameRequired: 'Username is required',
  passwordsDiffer: 'Passwords do not match',
  termsRequired: 'You must accept the terms',
  codeRequired: 'Verification code is required',
  codeDigits: 'Code must be 6 digits',
  verificationRequired: 'Email verification required',
  generic: 'An error occurred. Please try again.',
  invalidCode: 'Invalid verification code',
  resendFailed: 'Failed to resend verification code',
  codeSent: 'Verification code sent successfully',
  providerUnavailable: (provider: string) => `OAuth provider ${provider} is not available`,
  authUrlFailed: 'Failed to get authorization URL',
  oauthFailed: 'OAuth login failed',
  // OAuth callback
  missingProvider: 'Missing OAuth provider',
  missingCode: 'Missing authorization code',
  invalidResponse: 'Invalid response from server',
  authenticationFailed: 'Authentication failed',
  desktopDone: 'Authentication successful! You can now login to the desktop app with your email.',
  // Password reset
  forgotPassword: 'Forgot password?',
  resetHeading: 'Reset your password',
  newPasswordHeading: 'Choose a new password',
  sendCode: 'Send Code',
  setNewPassword: 'Set New Password',
  backToSignIn: 'Back to sign in',
} as const;

/** Password length, resend wait and code length. */
export const MIN_PASSWORD = 8;
export const SIGNUP_RESEND_SECONDS = 60;
export const CODE_LENGTH = 6;
/** Post-login redirect 1.5 s, error redirect 3 s. */
export const SUCCESS_REDIRECT_MS = 1500;
export const ERROR_REDIRECT_MS = 3000;
