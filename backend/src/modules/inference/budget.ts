/**
 * How many completion tokens a reply may generate: its max_tokens, cut to what the requester's hold pays for
 * (`holdTokens`, prompt included; null for a free model). The platform applies it for every generator (the
 * in-cluster worker's own count of the prompt, its own count for a remote node, which is sent only the result), and
 * charges at most the hold whatever a generator reports.
 */
export type CompletionBudget = { maxTokens: number; budgetLimited: boolean } | { insufficient: true };

export function completionBudget(promptTokens: number, maxTokens: number, holdTokens: number | null): CompletionBudget {
  if (holdTokens === null) return { maxTokens, budgetLimited: false };
  const affordable = holdTokens - promptTokens;
  if (affordable <= 0) return { insufficient: true };
  return affordable < maxTokens ? { maxTokens: affordable, budgetLimited: true } : { maxTokens, budgetLimited: false };
}

/** The tokens a hold of `holdUnits` pays for at `priceUnits` per token; null for a free model. */
export const holdTokens = (holdUnits: number, priceUnits: number): number | null => (priceUnits > 0 ? Math.floor(holdUnits / priceUnits) : null);
