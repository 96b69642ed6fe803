import { z } from "zod";

// Shared by the sign-in form and the sign-in action.
export const signInSchema = z.object({
  email: z.email("Enter an email address").max(254),
  password: z.string().min(1, "Enter your password").max(200),
  callbackUrl: z.string().max(2000).optional(),
});

export type SignInInput = z.infer<typeof signInSchema>;

/** Only same-site paths may be returned to after sign-in, never another origin. */
export function safeCallbackPath(value: string | undefined | null): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  if (value.startsWith("/sign-in") || value.startsWith("/api/auth")) return "/";
  return value;
}
