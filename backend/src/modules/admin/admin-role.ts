import type { Schemas } from '../../contract/types';
import type { User } from '../accounts/users.repository';

/**
 * The one rule for operators: a live account whose e-mail address is proved and listed in ADMIN_EMAILS (stored
 * lower-cased, as config lower-cases the list). Read from the account on every request, never from a client's claim.
 */
export function userRole(user: Pick<User, 'email' | 'emailVerifiedAt' | 'deletedAt'>, adminEmails: readonly string[]): Schemas['UserRole'] {
  const operator = !user.deletedAt && user.emailVerifiedAt !== null && user.email !== null && adminEmails.includes(user.email.toLowerCase());
  return operator ? 'admin' : 'user';
}
