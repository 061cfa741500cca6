import { Foundation1763700000000 } from './1763700000000-Foundation';

/** Every migration, oldest first. A new migration is added here. */
export const MIGRATIONS = [Foundation1763700000000];
