import { ValueTransformer } from 'typeorm';

/** pg returns bigint as a string; these columns stay far below 2^53, so numbers are exact. */
export const bigintToNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
