// The page's service worker (issue 40): shows a Web Push notification the server sent to this browser's
// subscription (a player's "Push to this device" in the lobby; the body is the JSON Notification,
// encrypted on the wire and decrypted by the browser), and a click on it brings a Salvo window forward
// (or opens the lobby, whose "My games" lists the game). No caching, no fetch handler: the page is online.
/** @type {any} */
const worker = self;

/** @param {string | undefined} type */
function titleOf(type) {
  switch (type) {
    case "your_turn": return "Your move";
    case "battle": return "A battle needs you";
    case "ruling": return "An umpire's ruling";
    case "rewound": return "A game was rewound";
    case "game_over": return "Game over";
    case "paused": return "Notifications paused";
    default: return "Salvo";
  }
}

worker.addEventListener("push", (/** @type {any} */ event) => {
  /** @type {any} */
  let note = {};
  try { note = event.data ? event.data.json() : {}; } catch { note = { text: event.data ? event.data.text() : "" }; }
  const game = note.linked_game_id || note.game_id || null;
  event.waitUntil(worker.registration.showNotification(titleOf(note.type), {
    body: note.text || "",
    tag: game ? `salvo-${game}` : "salvo",
    icon: "/static/icon.svg",
    data: { game_id: game, type: note.type || null },
  }));
});

worker.addEventListener("notificationclick", (/** @type {any} */ event) => {
  event.notification.close();
  event.waitUntil((async () => {
    const open = await worker.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const client of open) if ("focus" in client) return client.focus();
    return worker.clients.openWindow("/");
  })());
});
