import { CODE_LENGTH, MIN_PASSWORD, MSG } from './messages';

export interface LoginValues {
  email: string;
  password: string;
}

export interface RegisterValues extends LoginValues {
  username: string;
  confirmPassword: string;
  acceptTerms: boolean;
}

export type FieldErrors<T> = Partial<Record<keyof T, string>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An e-mail must look like an address. */
export function isEmail(value: string): boolean {
  return EMAIL.test(value.trim());
}

function emailError(email: string): string | undefined {
  if (!email.trim()) return MSG.emailRequired;
  if (!isEmail(email)) return MSG.emailInvalid;
  return undefined;
}

function passwordError(password: string): string | undefined {
  if (!password) return MSG.passwordRequired;
  if (password.length < MIN_PASSWORD) return MSG.passwordShort;
  return undefined;
}

function compact<T>(errors: FieldErrors<T>): FieldErrors<T> {
  return Object.fromEntries(Object.entries(errors).filter(([, v]) => v)) as FieldErrors<T>;
}

export interface NewPasswordValues {
  password: string;
  confirmPassword: string;
}

/** The e-mail rule alone (the first step of a password reset). */
export function validateEmail(email: string): string | undefined {
  return emailError(email);
}

/** A new password: the password rule and a matching confirmation. */
export function validateNewPassword(values: NewPasswordValues): FieldErrors<NewPasswordValues> {
  return compact<NewPasswordValues>({
    password: passwordError(values.password),
    confirmPassword: values.confirmPassword === values.password ? undefined : MSG.passwordsDiffer,
  });
}

/** Sign-in: e-mail and password rules. */
export function validateLogin(values: LoginValues): FieldErrors<LoginValues> {
  return compact<LoginValues>({ email: emailError(values.email), password: passwordError(values.password) });
}

/** The login rules plus username, matching confirmation and accepted terms. */
export function validateRegister(values: RegisterValues): FieldErrors<RegisterValues> {
  return compact<RegisterValues>({
    username: values.username.trim() ? undefined : MSG.usernameRequired,
    email: emailError(values.email),
    password: passwordError(values.password),
    confirmPassword: values.confirmPassword === values.password ? undefined : MSG.passwordsDiffer,
    acceptTerms: values.acceptTerms ? undefined : MSG.termsRequired,
  });
}

/** Required, exactly 6 digits. */
export function validateCode(code: string): string | undefined {
  const trimmed = code.trim();
  if (!trimmed) return MSG.codeRequired;
  if (!new RegExp(`^\\d{${CODE_LENGTH}}$`).test(trimmed)) return MSG.codeDigits;
  return undefined;
}

/** The second step of a sign-in: an authenticator's 6 digits, or a recovery code (`xxxxx-xxxxx`, hyphen optional). */
export function validateSecondFactor({ code }: { code: string }, method: 'totp' | 'recovery_code'): FieldErrors<{ code: string }> {
  const value = code.trim();
  if (method === 'totp')
    return compact({ code: !value ? MSG.authCodeRequired : !new RegExp(`^\\d{${CODE_LENGTH}}$`).test(value) ? MSG.codeDigits : undefined });
  return compact({ code: !value ? MSG.recoveryRequired : !/^[A-Za-z0-9]{5}-?[A-Za-z0-9]{5}$/.test(value) ? MSG.recoveryInvalid : undefined });
}
