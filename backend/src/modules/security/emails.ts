import type { MailJob } from '../../jobs/jobs';
import { mail } from '../accounts/emails';
import { PRODUCT_NAME } from '../../common/product';

/** Notices of changes to how an account signs in; none ever holds a code or a secret. */

const notYou = (supportEmail: string) =>
  `If it was not you, someone may know your password: reset it at once from the sign-in page, and write to ${supportEmail}.`;

export function totpEnabledEmail(to: string, supportEmail: string): MailJob {
  return mail(to, `Two-factor sign-in is on for your ${PRODUCT_NAME} account`, 'Two-factor sign-in is on', [
    `Two-factor sign-in was just turned on for your ${PRODUCT_NAME} account. From now on, signing in asks for a code from your authenticator app after your password or social sign-in.`,
    `Keep your recovery codes somewhere safe: each one signs you in once if you lose your device.`,
    notYou(supportEmail),
  ]);
}

export function totpDisabledEmail(to: string, supportEmail: string): MailJob {
  return mail(to, `Two-factor sign-in is off for your ${PRODUCT_NAME} account`, 'Two-factor sign-in is off', [
    `Two-factor sign-in was just turned off for your ${PRODUCT_NAME} account: your password or social sign-in alone signs you in again, and your recovery codes no longer work.`,
    notYou(supportEmail),
  ]);
}

export function recoveryCodeUsedEmail(to: string, left: number, supportEmail: string): MailJob {
  const remaining = left === 1 ? '1 recovery code is' : `${left} recovery codes are`;
  return mail(to, `A recovery code was used on your ${PRODUCT_NAME} account`, 'A recovery code was used', [
    `One of your ${PRODUCT_NAME} recovery codes was just used instead of a code from your authenticator app. It cannot be used again; ${remaining} left.`,
    `If you no longer have your authenticator app, make new recovery codes or set two-factor sign-in up again with a new device once you are signed in.`,
    notYou(supportEmail),
  ]);
}
