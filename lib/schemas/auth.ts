import { z } from "zod";
import { MAX_REDIRECT_TARGET_LENGTH } from "../http/redirect-target";

// Shared by the sign-in form and the sign-in action.
export const signInSchema = z.object({
  email: z.email("Enter an email address").max(254),
  password: z.string().min(1, "Enter your password").max(200),
  // Where to go afterwards, checked by safeRedirectPath. One that is not a string or too long is dropped (the start
  // page), never a reason to refuse the sign-in: the form shows no field for it.
  callbackUrl: z.string().max(MAX_REDIRECT_TARGET_LENGTH).optional().catch(undefined),
});

export type SignInInput = z.infer<typeof signInSchema>;

/** A password someone chooses: long enough to resist guessing, no longer than the sign-in form accepts. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = signInSchema.shape.password.maxLength ?? 200;
export const newPasswordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters`);

// Shared by the change-password form and its action.
export const changePasswordSchema = z
  .object({
    currentPassword: z.string().min(1, "Enter your current password").max(MAX_PASSWORD_LENGTH),
    newPassword: newPasswordSchema,
    confirmPassword: z.string().max(MAX_PASSWORD_LENGTH),
  })
  .refine((v) => v.confirmPassword === v.newPassword, {
    path: ["confirmPassword"],
    message: "Type the same new password twice",
  })
  .refine((v) => v.newPassword !== v.currentPassword, {
    path: ["newPassword"],
    message: "Choose a password other than the current one",
  });

export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;
