import { z } from "zod";

// Shared by the exchange form and the exchange action. The spec's sample token is UUID-shaped.
export const exchangeTokenSchema = z.object({
  exchangeableToken: z.string().trim().pipe(z.uuid("An exchangeable token looks like 123e4567-e89b-12d3-a456-426614174000")),
});

export type ExchangeTokenInput = z.infer<typeof exchangeTokenSchema>;
