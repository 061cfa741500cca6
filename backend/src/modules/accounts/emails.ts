import type { MailJob } from '../../jobs/jobs';
import { htmlEmail } from '../../mail/templates';
import { PRODUCT_NAME } from '../../common/product';

const minutes = (seconds: number) => (seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`);

/** One e-mail in the product's layout, as text and HTML. */
export function mail(to: string, subject: string, title: string, paragraphs: string[]): MailJob {
  return { to, subject, text: paragraphs.join('\n\n'), html: htmlEmail(title, paragraphs) };
}

export function signupCodeEmail(to: string, code: string, ttlSeconds: number): MailJob {
  return mail(to, `Your ${PRODUCT_NAME} verification code`, 'Verify your email', [
    `Your ${PRODUCT_NAME} verification code is: ${code}`,
    `It expires in ${minutes(ttlSeconds)} and can be used once. Enter it on the sign-up page to finish creating your account.`,
    `If you did not ask for this code, you can ignore this e-mail: no account is created without it.`,
  ]);
}

/** Sent instead of a code when the address already has an account, so sign-up never reveals who is registered. */
export function alreadyRegisteredEmail(to: string, webUrl: string): MailJob {
  return mail(to, `Someone tried to sign up for ${PRODUCT_NAME} with your e-mail`, 'You already have an account', [
    `Someone (hopefully you) tried to create a ${PRODUCT_NAME} account with this e-mail address, which already has one.`,
    `To use your account, sign in at ${webUrl}/app/auth.`,
    `If it was not you, you can ignore this e-mail; your account has not been changed.`,
  ]);
}

export function deletionCodeEmail(to: string, code: string, ttlSeconds: number): MailJob {
  return mail(to, `Your ${PRODUCT_NAME} account deletion code`, 'Confirm account deletion', [
    `Your ${PRODUCT_NAME} account deletion code is: ${code}`,
    `It expires in ${minutes(ttlSeconds)}. Entering it and confirming deletes your account and its personal data permanently; transaction records are kept, anonymised, for 7 years as the law requires.`,
    `If you did not ask to delete your account, ignore this e-mail and your account stays as it is.`,
  ]);
}

export function passwordResetCodeEmail(to: string, code: string, ttlSeconds: number): MailJob {
  return mail(to, `Your ${PRODUCT_NAME} password reset code`, 'Reset your password', [
    `Your ${PRODUCT_NAME} password reset code is: ${code}`,
    `It expires in ${minutes(ttlSeconds)} and can be used once. Setting a new password signs you out everywhere else.`,
    `If you did not ask to reset your password, ignore this e-mail: your password stays as it is.`,
  ]);
}

/**
 * Sent instead of a deletion or password-reset code when the address has no account, so that asking reveals
 * nothing and takes the same work either way.
 */
export function noAccountEmail(to: string, purpose: 'deletion' | 'password_reset', webUrl: string): MailJob {
  const what = purpose === 'deletion' ? 'delete' : 'reset the password of';
  return mail(to, `Your ${PRODUCT_NAME} request`, 'No account for this address', [
    `Someone (hopefully you) asked to ${what} the ${PRODUCT_NAME} account of this e-mail address, but there is no account for it.`,
    `To create one, sign up at ${webUrl}/app/auth.`,
    `If it was not you, you can ignore this e-mail.`,
  ]);
}
