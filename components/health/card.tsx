/** A titled panel of the Health page. */
export function HealthCard({
  title,
  description,
  children,
  className = "",
}: {
  title: string;
  description?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
}) {
  return (
    <section className={`rounded-lg border border-slate-200 bg-white p-4 ${className}`}>
      <h2 className="text-base font-semibold text-slate-900">{title}</h2>
      {description ? <p className="mt-0.5 text-sm text-slate-600">{description}</p> : null}
      <div className="mt-3">{children}</div>
    </section>
  );
}
