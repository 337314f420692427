// `request.cf` is built by the runtime (its JSON parsed into an object) when it is first
// read, and worker's conversion of every incoming request reads it. Only the public pages
// use it (a visitor's country), so the entry hides it before the conversion and `country`
// reads it through the runtime's own getter when a page view asks. Neither throws: a
// JavaScript exception would unwind through wasm frames.

/** Hides `request.cf` from the conversion (an own property over the prototype's getter). */
export function hide_cf(request) {
  try {
    // An own `cf` is a plain value already (nothing to save), and hiding it would lose it.
    if (!Object.hasOwn(request, "cf")) {
      Object.defineProperty(request, "cf", { value: undefined, configurable: true });
    }
  } catch {
    // Not hidden: the conversion reads it, as it would without this.
  }
}

/** The visitor's country code from `request.cf`, if the runtime has one. */
export function cf_country(request) {
  try {
    const getter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(request), "cf")?.get;
    const country = (getter ? getter.call(request) : request.cf)?.country;
    return typeof country === "string" ? country : undefined;
  } catch {
    return undefined;
  }
}
