import { z } from "zod";
import { UPLOAD_MAX_BYTES, UPLOAD_MAX_LABEL } from "../import/limits";
import { checkFileSize } from "../import/parse";

// The Import page's upload, shared by the page (which checks the size before reading) and the server action (which
// checks it again, then reads and validates the file itself: nothing the browser concluded is trusted).

export const importUploadSchema = z.object({
  file: z
    .instanceof(File, { message: "Choose a file to import." })
    .superRefine((file, ctx) => {
      const problem = checkFileSize(file.size);
      if (problem) ctx.addIssue({ code: "custom", message: problem.message });
    }),
  /** Stop at the plan: nothing is sent upstream and no job is made. */
  dryRun: z.boolean(),
});
export type ImportUploadInput = z.infer<typeof importUploadSchema>;

export { UPLOAD_MAX_BYTES, UPLOAD_MAX_LABEL };
