export default function Loading() {
  return (
    <div aria-busy="true" aria-label="Loading" className="animate-pulse space-y-4">
      <div className="h-7 w-48 rounded bg-slate-200" />
      <div className="h-4 w-96 rounded bg-slate-200" />
      <div className="h-32 max-w-3xl rounded-lg bg-slate-200" />
    </div>
  );
}
