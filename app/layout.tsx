import type { Metadata } from "next";
import { Header } from "@/components/shell/header";
import { Sidebar } from "@/components/shell/sidebar";
import "./globals.css";

// Every page reads live configuration and upstream state (and, later, the signed-in person): nothing is prerendered.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Linkdesk", template: "%s · Linkdesk" },
  description: "Operate the bank connections held with the linking API",
  robots: { index: false, follow: false },
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-screen">
        <Sidebar />
        <div className="flex min-w-0 flex-1 flex-col">
          <Header />
          <main className="flex-1 px-6 py-6">{children}</main>
        </div>
      </body>
    </html>
  );
}
