const tones = {
  error: "border-red-200 bg-red-50 text-red-900",
  warning: "border-amber-200 bg-amber-50 text-amber-900",
  info: "border-slate-200 bg-white text-slate-800",
  success: "border-emerald-200 bg-emerald-50 text-emerald-900",
} as const;

/** A titled message box. Text only: upstream strings passed in are rendered escaped by React. */
export function Callout({
  tone = "info",
  title,
  children,
  role,
}: {
  tone?: keyof typeof tones;
  title: string;
  children?: React.ReactNode;
  role?: "alert" | "status";
}) {
  return (
    <div
      role={role ?? (tone === "error" ? "alert" : undefined)}
      className={`rounded-lg border px-4 py-3 ${tones[tone]}`}
    >
      <p className="font-medium">{title}</p>
      {children ? <div className="mt-1 text-sm opacity-90">{children}</div> : null}
    </div>
  );
}
