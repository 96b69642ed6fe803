import { z } from "zod";

/** An open alert to acknowledge: the same schema the alerts page's button sends and the server checks. */
export const acknowledgeAlertSchema = z.object({ alertId: z.uuid("Not an alert of this Linkdesk.") });
export type AcknowledgeAlertInput = z.infer<typeof acknowledgeAlertSchema>;
