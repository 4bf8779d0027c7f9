/** Text put into the dashboard's HTML, escaped as character references: the one rule for both its parts. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
