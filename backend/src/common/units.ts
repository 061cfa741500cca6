import { BadRequestException } from '@nestjs/common';

/** The ledger counts integer milli-GLOB: 1 GLOB = 1000 units, so 37.5 GLOB is 37500 exactly. */
export const UNITS_PER_GLOB = 1000;

/** GLOB (as the API speaks) → units; refuses more than three decimals instead of rounding money. */
export function toUnits(glob: number, field = 'amount'): number {
  const units = Math.round(glob * UNITS_PER_GLOB);
  if (!Number.isFinite(glob) || Math.abs(units - glob * UNITS_PER_GLOB) > 1e-6) {
    throw new BadRequestException(`${field}: at most three decimals`);
  }
  return units;
}

/** Units (a pg bigint string or a number) → GLOB. */
export function toGlob(units: string | number | bigint | null | undefined): number {
  return Number(units ?? 0) / UNITS_PER_GLOB;
}
