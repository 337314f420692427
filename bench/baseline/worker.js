// The ceiling: the cheapest possible worker, run in the same local runtime as the API.
export default {
  fetch() {
    return new Response('{"ok":true}', { headers: { "Content-Type": "application/json" } });
  },
};
