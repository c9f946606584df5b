// Globals the page sets for the console and the browser tests (clients/web/app.js).
interface Window {
  salvo?: unknown;
}
