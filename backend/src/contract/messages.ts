/**
 * The web app's validation messages, used whenever the spec validator refuses one
 * of these fields, on any operation. Keyed by field name, then by the failing JSON Schema keyword.
 */
export const FIELD_MESSAGES: Record<string, Record<string, string>> = {
  email: { required: 'Email is required', format: 'Email is invalid', maxLength: 'Email is invalid', type: 'Email is invalid' },
  password: { required: 'Password is required', minLength: 'Password must be at least 8 characters' },
  username: { required: 'Username is required', minLength: 'Username is required', pattern: 'Username is required' },
  otp: { required: 'Verification code is required', pattern: 'Code must be 6 digits', type: 'Code must be 6 digits' },
};
