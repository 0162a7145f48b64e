// The one base of matchdb's pages (the equity explorer, /play, /replayer): each page's script imports its helpers
// from here, as each page is served in one shell (base.html) with one look (base.css). Every request to the API
// goes through request(), so every failure reaches the person as one sentence saying what happened, and a fix to
// that error path is made once, here.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** Seconds a page waits for an answer: a minute past the server's answer deadline (it stops a question then and says
 * so, 503), which the server writes into the page (`data-wait`); 90 where it is missing. */
export const TIMEOUT_SECONDS = Number(document.body?.dataset.wait) || 90;

/** A query string from {name: value or [values]}; values are URL-encoded (a range's '+' travels as %2B). */
export function query(params) {
  const parts = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(one))}`);
    }
  }
  return parts.join("&");
}

/**
 * Ask the API: `method` on `path` (with `params` in the query, `body` sent as JSON), and its JSON answer.
 *
 * Anything else is thrown as an Error whose message is one sentence: the API's own `detail` when it refuses (4xx)
 * or fails (5xx) in its words; otherwise what came back (the status, and the text of a plain-text or HTML body, as
 * a proxy or a crashed server sends it); no answer at all (the server not reached, or the connection closed); or
 * no answer within `timeout` seconds.
 */
export async function request(method, path, { params, body, timeout = TIMEOUT_SECONDS } = {}) {
  const search = params ? query(params) : "";
  const headers = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const signal = AbortSignal.timeout(timeout * 1000);
  let response;
  try {
    response = await fetch(search ? `${path}?${search}` : path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal,
    });
  } catch (failure) {
    throw new Error(unanswered(path, failure, timeout));
  }
  let text;
  try {
    text = await response.text();
  } catch (failure) {
    throw new Error(failure.name === "TimeoutError" ? unanswered(path, failure, timeout)
      : `The server's answer to ${path} (${statusOf(response)}) broke off before its end; expected it whole.`);
  }
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error(response.ok ? `The server answered ${path} with ${statusOf(response)} but not with JSON${said(text, response)}; `
      + "expected matchdb's API." : refused(path, response, text));
  }
  if (!response.ok) {
    if (answer && typeof answer.detail === "string") throw new Error(answer.detail); // the API's one sentence
    throw new Error(refused(path, response, text));
  }
  return answer;
}

/** GET `path` with `params`: its JSON answer (see request). */
export function getJSON(path, params, options = {}) {
  return request("GET", path, { ...options, params });
}

/** POST `body` as JSON to `path`: its JSON answer (see request). */
export function postJSON(path, body, options = {}) {
  return request("POST", path, { ...options, body });
}

function statusOf(response) {
  return response.statusText ? `${response.status} ${response.statusText}` : String(response.status);
}

// What a body says, as a clause: its text (an HTML page's words), on one line and at most 300 characters; nothing
// when it is empty or only repeats the status ("Internal Server Error").
function said(text, response) {
  let words = text || "";
  if ((response.headers.get("content-type") || "").includes("html")) {
    words = new DOMParser().parseFromString(words, "text/html").body.textContent || "";
  }
  words = words.replace(/\s+/g, " ").trim();
  if (!words || words === response.statusText || words === statusOf(response)) return "";
  return `, saying "${words.length > 300 ? `${words.slice(0, 299)}\u2026` : words}"`;
}

// An error status without the API's sentence (a proxy's page, a crashed server's "Internal Server Error"): what came.
function refused(path, response, text) {
  const whose = response.status >= 500 ? "; the fault is the server's, not the question's" : "";
  return `The server answered ${path} with ${statusOf(response)}${said(text, response)}${whose}.`;
}

function unanswered(path, failure, timeout) {
  if (failure.name === "TimeoutError") return `The server did not answer ${path} within ${timeout} s; the page stopped waiting.`;
  return `No answer came for ${path} (${failure.message}): the server could not be reached or closed the connection; ` +
    "is matchdb serve still running?";
}

/** Show `error` (an Error, or a sentence) in the page's error box; nothing (null) hides the box. */
export function showError(error) {
  const box = $("error");
  const message = !error ? "" : typeof error === "string" ? error : error.message || String(error);
  box.textContent = message;
  box.hidden = !message;
}

/** An equity or a probability as players read it: a percentage with two decimals ("-" for none). */
export function percent(value) {
  return value === null || value === undefined ? "-" : `${(100 * value).toFixed(2)} %`;
}

/** The page's line in the shared header (the database's format, the session, ...). */
export function setInfo(text) {
  $("page-info").textContent = text;
}
