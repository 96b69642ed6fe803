import "server-only";
import { getBudget } from "../budget";
import { callHeadroom, describeDuration, estimateCost } from "../budget/headroom";
import { CORRECTION_ENDPOINT } from "./categories";

// What a bulk correction costs before anyone starts it: one Correct Enrichment call per transaction, paced by the
// tightest budget key of that endpoint for the link (usually the per-link limit).

export interface CorrectionCost {
  calls: number;
  /** Until the last call can go, at the budget's pace from what is left now. */
  seconds: number;
  /** "12 calls, about 25 s at the per-link limit (30/min, 28 left now)" */
  text: string;
}

export async function correctionCost(linkId: string, calls: number): Promise<CorrectionCost> {
  if (calls <= 0) return { calls: 0, seconds: 0, text: "Nothing to send." };
  const estimate = estimateCost(calls, await callHeadroom(await getBudget(), CORRECTION_ENDPOINT, { linkId }));
  const noun = `${calls.toLocaleString("en")} upstream call${calls === 1 ? "" : "s"}`;
  if (!estimate) return { calls, seconds: 0, text: noun };
  return {
    calls,
    seconds: estimate.seconds,
    text: `${noun}, ${describeDuration(estimate.seconds)} at the per-${estimate.scope} limit (${estimate.limit}/min, ${estimate.remaining} left now)`,
  };
}
