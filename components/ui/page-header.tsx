export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: string;
  actions?: React.ReactNode;
}) {
  return (
    <div className="mb-6 flex items-start justify-between gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
        {description ? <p className="mt-1 text-sm text-slate-600">{description}</p> : null}
      </div>
      {actions ? <div className="flex shrink-0 items-center gap-2">{actions}</div> : null}
    </div>
  );
}

/** The header while its page loads: grey bars where the title, the description and (if the page has one) its button go. */
export function PageHeaderSkeleton({
  titleWidth,
  descriptionWidth,
  action = true,
}: {
  titleWidth: string;
  descriptionWidth: string;
  action?: boolean;
}) {
  return (
    <div className="mb-6 flex items-start justify-between gap-4">
      <div className="space-y-2">
        <div className={`h-7 ${titleWidth} rounded bg-slate-200`} />
        <div className={`h-4 ${descriptionWidth} max-w-full rounded bg-slate-200`} />
      </div>
      {action ? <div className="h-8 w-28 rounded-md bg-slate-200" /> : null}
    </div>
  );
}
