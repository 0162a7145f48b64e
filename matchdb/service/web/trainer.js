// matchdb's trainer: a decision dealt from a solution library (GET /v1/library/{name}/deal: board, line, hand and
// actions; never the solution), the person's pick graded by the solution (GET /v1/library/{name}/grade: the hand's
// frequency and EV of each action, the EV lost), and the session's tally (POST /v1/library/{name}/summary, which
// grades the session's picks again on the server: the page computes no figure).
import { $, getJSON, postJSON, showError } from "./base.js";

let drill = null;   // the decision shown
let picks = [];     // the session's picks: {board, line, hand, action}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function fail(error) {
  showError(error);
  document.body.dataset.state = "error";
}

function library() {
  return encodeURIComponent($("library").value);
}

async function deal(event) {
  if (event) event.preventDefault();
  showError(null);
  document.body.dataset.state = "dealing";
  try {
    const player = $("player").value;
    drill = await getJSON(`/v1/library/${library()}/deal`, player ? { player } : {});
    show();
    document.body.dataset.state = "asking";
  } catch (error) {
    fail(error);
  }
}

function show() {
  $("drill").hidden = false;
  $("verdict").hidden = true;
  const spot = $("spot");
  const before = drill.line.length ? drill.line.join(", ") : "nothing yet";
  spot.replaceChildren("Flop ", element("span", drill.board, "cards"), `, pot ${drill.pot}; before you: ${before}`);
  $("you").replaceChildren(`You are ${drill.player} with `, element("span", drill.hand, "cards"), ". Your action?");
  $("picks").replaceChildren(...drill.actions.map((action) => {
    const b = element("button", action);
    b.type = "button";
    b.dataset.action = action;
    b.addEventListener("click", () => pick(action, b));
    return b;
  }));
}

async function pick(action, button) {
  for (const b of $("picks").children) b.disabled = true;
  button.classList.add("picked");
  document.body.dataset.state = "grading";
  try {
    const graded = await getJSON(`/v1/library/${library()}/grade`,
      { board: drill.board, line: drill.line.join(", "), hand: drill.hand, action });
    picks.push({ board: drill.board, line: drill.line, hand: drill.hand, action });
    verdict(graded);
    await tally();
    document.body.dataset.state = "graded";
  } catch (error) {
    fail(error);
  }
}

function verdict(graded) {
  $("verdict").hidden = false;
  const said = $("said");
  const freq = graded.frequencies[graded.action];
  said.replaceChildren(
    element("span", graded.in_mix ? "In the solution's mix. " : `The solution plays ${graded.action} ${(100 * freq).toFixed(1)} % here. `,
            graded.in_mix ? "good" : "bad"),
    `EV lost: ${graded.ev_lost.toFixed(2)} chips (${graded.ev_lost_pct.toFixed(2)} % of the pot); best: ${graded.best}.`);
  said.dataset.evLost = String(graded.ev_lost);
  const table = $("solution");
  const head = element("tr");
  ["action", "solution", "EV"].forEach((h) => head.append(element("th", h)));
  table.replaceChildren(head);
  for (const [action, f] of Object.entries(graded.frequencies)) {
    const tr = element("tr");
    tr.dataset.action = action;
    tr.dataset.frequency = String(f);
    tr.dataset.ev = String(graded.ev[action]);
    const ev = graded.ev[action];
    [action + (action === graded.action ? " (you)" : ""), `${(100 * f).toFixed(1)} %`,
     ev === null ? "-" : ev.toFixed(2)].forEach((v) => tr.append(element("td", v)));
    table.append(tr);
  }
}

async function tally() {
  const summary = await postJSON(`/v1/library/${library()}/summary`, { picks });
  $("session").hidden = false;
  const tallyLine = $("tally");
  tallyLine.textContent = `${summary.hands} hands: EV lost ${summary.ev_lost.toFixed(2)} chips, ` +
    `${summary.ev_lost_pct.toFixed(2)} % of the pot a hand; ${(100 * summary.in_mix).toFixed(0)} % of picks in the ` +
    `solution's mix, ${(100 * summary.best).toFixed(0)} % the best.`;
  tallyLine.dataset.summary = JSON.stringify(summary);
  const table = $("history");
  const head = element("tr");
  ["costliest picks", "you", "best", "EV lost"].forEach((h) => head.append(element("th", h)));
  table.replaceChildren(head, ...summary.worst.map((g) => {
    const tr = element("tr");
    const where = `${g.drill.hand} on ${g.drill.board}${g.drill.line.length ? ` after ${g.drill.line.join(", ")}` : ""}`;
    [where, g.action, g.best, g.ev_lost.toFixed(2)].forEach((v) => tr.append(element("td", v)));
    return tr;
  }));
}

async function start() {
  try {
    const { libraries } = await getJSON("/v1/library");
    $("library").replaceChildren(...libraries.map((l) => {
      const option = element("option", `${l.name} (${l.flops} flops)`);
      option.value = l.name;
      return option;
    }));
    $("none").hidden = libraries.length > 0;
    $("setup").hidden = libraries.length === 0;
    $("library").addEventListener("change", () => { picks = []; $("session").hidden = true; });
    document.body.dataset.state = "ready";
  } catch (error) {
    fail(error);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("setup").addEventListener("submit", deal);
  $("next").addEventListener("click", () => deal());
  start();
});
