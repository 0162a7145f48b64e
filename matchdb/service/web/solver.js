// matchdb's solver page: a spot posted to /v1/solve, its progress followed, the solution browsed node by node
// (GET /v1/solve/{id}/node); or a flop of a solution library the server holds, browsed without solving
// (GET /v1/library/{name}/node, its flop's and turn's decisions). The 13 x 13 grid shows the range of the player to act, each
// class coloured by its mix of actions (weighted by combos); hovering a class lists its hands; clicking an action or
// a card walks the tree.
import { $, request, showError as showBaseError } from "./base.js";

const RANKS = "AKQJT98765432";
let job = null;     // the id of the solve
let shelf = null;   // or {library, board}: a library's flop being browsed
let line = [];      // the steps from the root to the node shown
let node = null;    // the node's answer
let polling = null;

function actionColour(action, index, actions) {
  if (action === "Fold") return "#3b7dd8";
  if (action === "Check" || action === "Call") return "#4caf6a";
  if (action.startsWith("All-in")) return "#7a0f1c";
  const sized = actions.filter((a) => !["Fold", "Check", "Call"].includes(a) && !a.startsWith("All-in"));
  const k = sized.indexOf(action);
  const shades = ["#f08a5d", "#e0533f", "#c0392b", "#a93226"];
  return shades[Math.min(Math.max(k, 0), shades.length - 1)];
}

/** The base's one error path, and the page's state for its test. */
function reportError(message) {
  showBaseError(message);
  if (message) document.body.dataset.state = "error";
}

function ask(method, url, body) {
  return request(method, url, { body });
}

function spot() {
  const number = (id) => Number($(id).value);
  return { oop: $("oop").value, ip: $("ip").value, board: $("board").value.replace(/\s+/g, ""),
           pot: number("pot"), stack: number("stack"), bet: $("bet").value, raise: $("raise").value,
           target: number("target") };
}

async function solve(event) {
  event.preventDefault();
  reportError("");
  if (job) ask("DELETE", `/v1/solve/${job}`).catch(() => {});
  job = null;
  shelf = null;
  $("result").hidden = true;
  try {
    const posted = await ask("POST", "/v1/solve", spot());
    job = posted.id;
    document.body.dataset.state = "solving";
    $("stop").hidden = false;
    follow();
  } catch (error) {
    reportError(error.message);
  }
}

async function follow() {
  clearTimeout(polling);
  if (!job) return;
  try {
    const status = await ask("GET", `/v1/solve/${job}`);
    const p = status.progress;
    const progress = $("progress");
    progress.hidden = false;
    progress.textContent = `${status.state}: ${p.iterations} iterations` +
      (p.exploitability_pct == null ? "" : `, exploitability ${p.exploitability_pct.toFixed(3)} % of the pot`);
    if (status.state === "done") {
      $("stop").hidden = true;
      const s = status.solution;
      $("summary").textContent = `${s.board}: ${s.iterations} iterations, exploitability ${s.exploitability_pct.toFixed(3)} % ` +
        `of the pot; OOP equity ${(100 * s.oop_equity).toFixed(2)} %, EV ${s.oop_ev.toFixed(2)}; IP EV ${s.ip_ev.toFixed(2)}`;
      await go([]);
      return;
    }
    if (status.state === "failed") {
      $("stop").hidden = true;
      reportError(status.error || "The solve failed.");
      return;
    }
    polling = setTimeout(follow, 400);
  } catch (error) {
    reportError(error.message);
  }
}

async function stop() {
  clearTimeout(polling);
  if (job) await ask("DELETE", `/v1/solve/${job}`).catch(() => {});
  job = null;
  $("stop").hidden = true;
  $("progress").textContent = "stopped";
  document.body.dataset.state = "ready";
}

async function browse(event) {
  event.preventDefault();
  reportError("");
  clearTimeout(polling);
  if (job) ask("DELETE", `/v1/solve/${job}`).catch(() => {});
  job = null;
  $("stop").hidden = true;
  $("progress").hidden = true;
  shelf = { library: $("library").value, board: $("flop").value.replace(/\s+/g, "") };
  await go([]);
}

async function go(steps) {
  document.body.dataset.state = "loading";
  try {
    const path = encodeURIComponent(steps.join(", "));
    const answer = shelf
      ? await ask("GET", `/v1/library/${encodeURIComponent(shelf.library)}/node?board=${encodeURIComponent(shelf.board)}` +
                  `&line=${path}&hands=true`)
      : await ask("GET", `/v1/solve/${job}/node?path=${path}`);
    line = steps;
    node = answer;
    draw();
    document.body.dataset.state = "done";
  } catch (error) {
    reportError(error.message);
  }
}

function button(text, onClick, title) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (title) b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function handClass(hand) {
  const a = RANKS.indexOf(hand[0]), b = RANKS.indexOf(hand[2]);
  const hi = Math.min(a, b), lo = Math.max(a, b);
  if (a === b) return [a, a, RANKS[a] + RANKS[a]];
  if (hand[1] === hand[3]) return [hi, lo, RANKS[hi] + RANKS[lo] + "s"];
  return [lo, hi, RANKS[hi] + RANKS[lo] + "o"];
}

function draw() {
  $("result").hidden = false;
  if (shelf) {
    $("summary").textContent = `${node.board}: library ${shelf.library}, exploitability ${node.exploitability_pct.toFixed(3)} % ` +
      "of the pot; the flop's and the turn's decisions are stored";
  }
  const nav = $("line");
  nav.replaceChildren(button("root", () => go([])));
  line.forEach((step, i) => nav.append(button(step, () => go(line.slice(0, i + 1)))));
  const who = node.player ? `${node.player} to act` : node.kind === "chance" ? "a card to deal" : `the end (${node.kind})`;
  $("where").textContent = `${node.board} (${node.street}), pot ${node.pot}: ${who}`;
  const actions = $("actions");
  actions.replaceChildren();
  node.actions.forEach((action, i) => {
    const b = button(`${action} ${(100 * node.frequencies[i]).toFixed(1)} %`, () => go([...line, action]));
    b.dataset.action = action;
    if (node.next && !node.next.includes(action)) {  // a library stores the flop's and the turn's decisions
      b.disabled = true;
      b.title = "the library stores no decision after this action";
    }
    b.style.borderColor = actionColour(action, i, node.actions);
    actions.append(b);
  });
  const cards = $("cards");
  cards.replaceChildren(...(node.cards || []).map((card) => {
    const b = button(card, () => go([...line, card]));
    b.dataset.card = card;
    return b;
  }));
  cards.hidden = !node.cards || node.cards.length === 0;
  delete cards.dataset.report;
  if (shelf && node.kind === "chance") markRunouts(node);
  drawGrid();
  drawCategories();
  $("details").replaceChildren(Object.assign(document.createElement("p"),
    { className: "hint", textContent: "Hover a hand class for its hands." }));
}

/** At a library's deal, each turn card's button shows the mix of the turn's first decision there (a turn report). */
async function markRunouts(deal) {
  const query = `board=${encodeURIComponent(shelf.board)}&line=${encodeURIComponent(line.join(", "))}`;
  try {
    const report = await ask("GET", `/v1/library/${encodeURIComponent(shelf.library)}/turns?${query}`);
    if (node !== deal) return;  // moved on meanwhile
    const rows = new Map(report.rows.map((r) => [r.turn, r]));
    for (const b of document.querySelectorAll("#cards button")) {
      const row = rows.get(b.dataset.card);
      if (!row || row.frequencies.some((f) => f === null)) continue;
      b.dataset.mix = JSON.stringify(row.frequencies);
      b.title = `${row.player}: ` + report.actions.map((a, i) => `${a} ${(100 * row.frequencies[i]).toFixed(1)} %`).join(", ");
      let at = 0;
      const stops = report.actions.map((a, i) => {
        const from = at;
        at += 100 * row.frequencies[i];
        return `${actionColour(a, i, report.actions)} ${from.toFixed(1)}% ${at.toFixed(1)}%`;
      });
      b.style.borderBottom = "4px solid";
      b.style.borderImage = `linear-gradient(to right, ${stops.join(", ")}) 1`;
    }
    $("cards").dataset.report = "done";
  } catch (error) {
    reportError(error.message);
  }
}

function shownPlayer() {
  return node.player ? node.player.toLowerCase() : "oop";
}

function drawGrid() {
  const player = shownPlayer();
  const hands = node.hands[player];
  const cells = Array.from({ length: 13 }, () => Array.from({ length: 13 }, () => ({ combos: 0, mix: null, hands: [] })));
  for (const hand of hands) {
    const [row, col] = handClass(hand.hand);
    const cell = cells[row][col];
    cell.hands.push(hand);
    cell.combos += hand.combos;
    if (hand.strategy) {
      cell.mix = cell.mix || hand.strategy.map(() => 0);
      hand.strategy.forEach((f, a) => { cell.mix[a] += f * hand.combos; });
    }
  }
  const legend = $("legend");
  legend.replaceChildren(...node.actions.map((action, i) => {
    const item = document.createElement("span");
    const swatch = document.createElement("i");
    swatch.style.background = actionColour(action, i, node.actions);
    item.append(swatch, action);
    return item;
  }));
  const table = $("grid");
  table.replaceChildren();
  for (let r = 0; r < 13; r++) {
    const tr = document.createElement("tr");
    for (let c = 0; c < 13; c++) {
      const name = r === c ? RANKS[r] + RANKS[c] : r < c ? RANKS[r] + RANKS[c] + "s" : RANKS[c] + RANKS[r] + "o";
      const cell = cells[r][c];
      const td = document.createElement("td");
      td.dataset.class = name;
      const label = document.createElement("span");
      label.textContent = name;
      td.append(label);
      if (cell.hands.length === 0) {
        td.className = "empty";
      } else if (cell.mix && cell.combos > 0) {
        const mix = cell.mix.map((x) => x / cell.combos);
        td.dataset.mix = JSON.stringify(mix);
        let at = 0;
        const stops = mix.map((f, a) => {
          const colour = actionColour(node.actions[a], a, node.actions);
          const part = `${colour} ${(100 * at).toFixed(2)}% ${(100 * (at + f)).toFixed(2)}%`;
          at += f;
          return part;
        });
        td.style.background = `linear-gradient(to right, ${stops.join(", ")})`;
        td.style.color = "#fff";
      } else {
        td.style.background = "#b8c4ce";
      }
      td.dataset.combos = cell.combos.toFixed(3);
      td.addEventListener("mouseenter", () => details(name, cell.hands));
      tr.append(td);
    }
    table.append(tr);
  }
}

function details(name, hands) {
  const aside = $("details");
  const title = document.createElement("h2");
  title.textContent = `${name} (${shownPlayer().toUpperCase()})`;
  if (hands.length === 0) {
    aside.replaceChildren(title, Object.assign(document.createElement("p"), { className: "hint", textContent: "not in the range here" }));
    return;
  }
  const table = document.createElement("table");
  const weighed = hands[0].weight !== undefined;  // a solve's hands carry their range weight; a library's, combos
  const head = ["hand", weighed ? "weight" : "combos", "equity", "EV",
                ...(hands[0].strategy ? node.actions.flatMap((a) => [a, `EV ${a}`]) : [])];
  const tr = document.createElement("tr");
  head.forEach((h) => tr.append(Object.assign(document.createElement("th"), { textContent: h })));
  table.append(tr);
  for (const hand of hands) {
    const row = document.createElement("tr");
    row.dataset.hand = hand.hand;
    const values = [hand.hand, (weighed ? hand.weight : hand.combos).toFixed(3), (100 * hand.equity).toFixed(1) + " %",
                    hand.ev.toFixed(2)];
    if (hand.strategy) hand.strategy.forEach((f, a) => values.push((100 * f).toFixed(1) + " %", hand.action_ev[a].toFixed(2)));
    values.forEach((v) => row.append(Object.assign(document.createElement("td"), { textContent: v })));
    table.append(row);
  }
  aside.replaceChildren(title, table);
}

function drawCategories() {
  const rows = node.categories[shownPlayer()].made;
  const table = $("categories");
  table.replaceChildren();
  const extra = node.player ? node.actions : [];
  const head = document.createElement("tr");
  ["made hand", "combos", "equity", "EV", ...extra].forEach((h) => head.append(Object.assign(document.createElement("th"), { textContent: h })));
  table.append(head);
  for (const r of rows) {
    const tr = document.createElement("tr");
    const values = [r.made, r.combos.toFixed(1), (100 * r.equity).toFixed(1) + " %", r.ev.toFixed(2),
                    ...extra.map((a) => (100 * r[a]).toFixed(1) + " %")];
    values.forEach((v) => tr.append(Object.assign(document.createElement("td"), { textContent: v })));
    table.append(tr);
  }
}

/** The libraries the server holds, offered for browsing (the form stays hidden when there are none). */
async function listLibraries() {
  try {
    const { libraries } = await ask("GET", "/v1/library");
    $("library").replaceChildren(...libraries.map((l) => Object.assign(document.createElement("option"),
      { value: l.name, textContent: `${l.name} (${l.flops} flops)` })));
    $("browse").hidden = libraries.length === 0;
  } catch (error) {
    reportError(error.message);
  }
}

document.addEventListener("DOMContentLoaded", async () => {
  $("spot").addEventListener("submit", solve);
  $("stop").addEventListener("click", stop);
  $("browse").addEventListener("submit", browse);
  await listLibraries();
  if (document.body.dataset.state !== "error") document.body.dataset.state = "ready";
});
