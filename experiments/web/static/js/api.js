// The server's JSON API (docs/web.md).  Errors become ApiError(status, one-line message).
export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

// `text`: a JSON body sent as it is (a record file: parsing it in JavaScript would round
// its 64-bit seed to a double); `body`: an object sent as JSON.
export async function api(path, { method = "GET", token = null, body = undefined, text = undefined } = {}) {
  const headers = {};
  if (token) headers["X-Seat-Token"] = token;
  const payload = text !== undefined ? text : body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, { method, headers, body: payload });
  } catch (e) {
    throw new ApiError(0, "the server cannot be reached");
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || `HTTP ${res.status}`);
  return data;
}
