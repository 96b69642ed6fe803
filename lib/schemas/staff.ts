import { z } from "zod";
import { isDemoEmail } from "../auth/demo";
import { ROLES } from "../auth/roles";

// Shared by the Staff page forms, their actions and the `npm run staff` command.
export const addStaffSchema = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email("Enter an email address").max(254))
    // Such an account could sign in only in demo mode, and would pass for a demo account.
    .refine((e) => !isDemoEmail(e), "Demo addresses are reserved for the sandbox's demo accounts"),
  name: z.string().trim().max(120).optional(),
  role: z.enum(ROLES, "Choose a role"),
});

export const staffIdSchema = z.object({ staffId: z.uuid() });

export const changeRoleSchema = z.object({ staffId: z.uuid(), role: z.enum(ROLES, "Choose a role") });

export type AddStaffInput = z.infer<typeof addStaffSchema>;
