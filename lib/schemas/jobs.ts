import { z } from "zod";

// Shared by the job page's buttons and the job actions.
export const jobIdSchema = z.object({ jobId: z.uuid("Not a job id") });
export type JobIdInput = z.infer<typeof jobIdSchema>;
