// The plain-JavaScript baseline of the delta benchmarks: what a page would
// write without the module — a straightforward WHATWG-style event-stream
// parser over a fetch Response (TextDecoder, lines split on CR, LF or CRLF,
// `data:` lines accumulated, an event dispatched on a blank line), then
// JSON.parse of each event's data and one onEvent call per event, with the
// same event objects the module hands its onEvent ({type: 'chat', event}).
// scripts/bench-variant.mjs runs it over the same bytes, in the same chunks,
// from the same scripted fetch as the module.

/** The chat stream's SSE event names and the types the page sees. */
const types = {
  message_start: 'messageStart',
  text_delta: 'textDelta',
  tool_call_start: 'toolCallStart',
  tool_call_delta: 'toolCallDelta',
  tool_call_stop: 'toolCallStop',
  message_stop: 'messageStop',
  error: 'error',
};

/**
 * Streams one answer: fetches it with fetchImpl, parses its body as server-
 * sent events and hands each known event to onEvent as {type: 'chat', event}.
 * Resolves with the number of events handed on.
 * @param {(url: string, init: object) => Promise<Response>} fetchImpl
 * @param {(event: object) => void} onEvent
 */
export async function plainTurn(fetchImpl, onEvent) {
  const controller = new AbortController();
  const body = new TextEncoder().encode(JSON.stringify({ messages: [{ role: 'user', content: 'a long story' }] }));
  const response = await fetchImpl('http://127.0.0.1/v1/studio/ai/chat', {
    method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json' }, body, signal: controller.signal,
  });
  if (!response.ok) throw new Error(`status ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = ''; // the text after the last line end
  let skipLF = false; // the last chunk ended in CR: a LF starting the next one ends no line
  let name = '';
  let data = '';
  let hasData = false;
  let count = 0;
  const line = (text) => {
    if (text === '') {
      // Dispatch.
      if (hasData && Object.hasOwn(types, name)) {
        let payload;
        try {
          payload = JSON.parse(data);
        } catch {
          payload = undefined;
        }
        if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
          payload.type = types[name];
          count++;
          try {
            onEvent({ type: 'chat', event: payload });
          } catch {
            // an observer's failure changes nothing
          }
        }
      }
      name = '';
      data = '';
      hasData = false;
      return;
    }
    if (text.charCodeAt(0) === 58) return; // ':' a comment
    const colon = text.indexOf(':');
    let field = text;
    let value = '';
    if (colon !== -1) {
      field = text.slice(0, colon);
      value = text.charCodeAt(colon + 1) === 32 ? text.slice(colon + 2) : text.slice(colon + 1);
    }
    if (field === 'event') name = value;
    else if (field === 'data') {
      data = hasData ? `${data}\n${value}` : value;
      hasData = true;
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    let text = done ? decoder.decode() : decoder.decode(value, { stream: true });
    if (skipLF && text.charCodeAt(0) === 10) text = text.slice(1);
    skipLF = false;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      line(pending + text.slice(start, i));
      pending = '';
      if (c === 13) {
        if (i + 1 === text.length) skipLF = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    pending += text.slice(start);
    if (done) break;
  }
  return count;
}
