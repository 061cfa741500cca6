import constants from '@glob/contract/constants.json';

/** The auth screens' messages, word for word. */
export const MSG = {
  emailRequired: 'Email is required',
  emailInvalid: 'Email is invalid',
  passwordRequired: 'Password is required',
  passwordShort: 'Password must be at least 8 characters',
  passwordHint: 'At least 8 characters.',
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
  /** The server writes its e-mails to its log (no mail server: a local make dev or make serve). */
  codeInServerLog: 'This server has no mail server configured: the code is in the API’s log, after “Your Glob Network verification code is:”.',
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
  // Two-factor sign-in
  twoFactorHeading: 'Enter your authentication code',
  twoFactorLead: 'Open your authenticator app and enter the 6-digit code it shows for Glob Network.',
  authenticationCode: 'Authentication code',
  authCodeRequired: 'Authentication code is required',
  useRecoveryCode: 'Use a recovery code',
  recoveryHeading: 'Enter a recovery code',
  recoveryLead: 'Enter one of the recovery codes you saved when you turned on two-factor sign-in. Each code works once.',
  recoveryCode: 'Recovery code',
  recoveryRequired: 'Recovery code is required',
  recoveryInvalid: 'Recovery codes look like k7m2q-x9p4w',
  useAuthenticator: 'Use your authenticator app',
  verify: 'Verify',
  passkeyHeading: 'Use your passkey',
  passkeyLead: 'Your account asks for one of its passkeys after your password.',
  usePasskey: 'Use a passkey',
  signInWithPasskey: 'Continue with a passkey',
  passkeyFailed: 'The passkey did not sign you in. Please try again.',
} as const;

/** The spec's Password (registration and reset share it): its length limits. */
export const PASSWORD_LIMITS = constants.fieldLimits.RegisterWithOtpRequest.password;
/** Password length, resend wait and code length. */
export const MIN_PASSWORD = PASSWORD_LIMITS.minLength;
export const SIGNUP_RESEND_SECONDS = 60;
export const CODE_LENGTH = 6;
/** Post-login redirect 1.5 s, error redirect 3 s. */
export const SUCCESS_REDIRECT_MS = 1500;
export const ERROR_REDIRECT_MS = 3000;
