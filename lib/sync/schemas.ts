import { z } from "zod";

// Shared by the "refresh now" button and its action.
export const refreshLinkSchema = z.object({
  linkId: z.string().trim().min(1, "A link id is required").max(200),
});

export type RefreshLinkInput = z.infer<typeof refreshLinkSchema>;
