// `request.cf` is built by the runtime (its JSON parsed into an object) when it is first
// read, and worker's conversion of every incoming request reads it. Only the public pages
// use it (a visitor's country), so the entry hides it before the conversion and `country`
// reads it through the runtime's own getter when a page view asks.

/** Hides `request.cf` from the conversion (an own property over the prototype's getter). */
export function hide_cf(request) {
  Object.defineProperty(request, "cf", { value: undefined, configurable: true });
}

/** The visitor's country code from `request.cf`, if the runtime has one. */
export function cf_country(request) {
  const getter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(request), "cf")?.get;
  const country = getter?.call(request)?.country;
  return typeof country === "string" ? country : undefined;
}
