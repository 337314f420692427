// The account area's one script (account-area.md 2): the passkey ceremonies, which need
// navigator.credentials, and the copy buttons. Everything else works without it.
"use strict";
(() => {
  const b64 = {
    // base64url without padding <-> ArrayBuffer, as WebAuthn's JSON forms write bytes.
    decode(s) {
      const t = s.replace(/-/g, "+").replace(/_/g, "/");
      const bin = atob(t + "===".slice((t.length + 3) % 4));
      return Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer;
    },
    encode(buf) {
      let bin = "";
      for (const byte of new Uint8Array(buf)) bin += String.fromCharCode(byte);
      return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    },
  };

  async function post(url, body) {
    const r = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body || {}),
    });
    const json = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(json.message || `HTTP ${r.status}`);
    return json;
  }

  function creationOptions(o) {
    return {
      ...o,
      challenge: b64.decode(o.challenge),
      user: { ...o.user, id: b64.decode(o.user.id) },
      excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: b64.decode(c.id) })),
    };
  }

  function requestOptions(o) {
    return {
      ...o,
      challenge: b64.decode(o.challenge),
      allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: b64.decode(c.id) })),
    };
  }

  function registrationJSON(c) {
    const r = c.response;
    return {
      id: c.id,
      rawId: b64.encode(c.rawId),
      type: c.type,
      response: {
        clientDataJSON: b64.encode(r.clientDataJSON),
        attestationObject: b64.encode(r.attestationObject),
        transports: r.getTransports ? r.getTransports() : [],
      },
      clientExtensionResults: c.getClientExtensionResults(),
      authenticatorAttachment: c.authenticatorAttachment,
    };
  }

  function authenticationJSON(c) {
    const r = c.response;
    return {
      id: c.id,
      rawId: b64.encode(c.rawId),
      type: c.type,
      response: {
        clientDataJSON: b64.encode(r.clientDataJSON),
        authenticatorData: b64.encode(r.authenticatorData),
        signature: b64.encode(r.signature),
        userHandle: r.userHandle ? b64.encode(r.userHandle) : null,
      },
      clientExtensionResults: c.getClientExtensionResults(),
      authenticatorAttachment: c.authenticatorAttachment,
    };
  }

  // A ceremony button: data-ceremony = create | get, data-options and data-finish URLs.
  async function ceremony(button) {
    const status = document.getElementById(button.dataset.status || "ceremony-status");
    const say = (text, error) => {
      if (!status) return;
      status.textContent = text;
      status.className = error ? "error" : "muted";
    };
    button.disabled = true;
    say(button.dataset.busy || "");
    try {
      const extra = {};
      const name = button.form && button.form.elements.namedItem("name");
      if (name) extra.name = name.value;
      const options = await post(button.dataset.options, extra);
      let body;
      if (button.dataset.ceremony === "create") {
        const c = await navigator.credentials.create({ publicKey: creationOptions(options) });
        body = registrationJSON(c);
      } else {
        const c = await navigator.credentials.get({ publicKey: requestOptions(options) });
        body = authenticationJSON(c);
      }
      if (name) body.name = name.value;
      const done = await post(button.dataset.finish, body);
      window.location.assign((done.data && done.data.redirect) || "/app");
    } catch (e) {
      // A person who closes the browser's dialog gets NotAllowedError: say so plainly.
      const cancelled = e && (e.name === "NotAllowedError" || e.name === "AbortError");
      say(cancelled ? button.dataset.cancelled || e.message : e.message, true);
      button.disabled = false;
    }
  }

  // A card's signature as rich text with its plain text beside it, else the text alone.
  // A copy event puts the HTML on the clipboard as sent (Chromium would parse a
  // ClipboardItem's HTML in this page and log its CSP refusing the inline styles). Safari
  // allows no copy after the fetch: there the item's promises keep the click's permission.
  function copySignature(b) {
    const got = fetch(b.dataset.signature).then((r) => r.json()).then((j) => j.data);
    const was = b.textContent;
    let done;
    if ("GestureEvent" in window && window.ClipboardItem) {
      const item = (k, type) => got.then((d) => new Blob([d[k]], { type }));
      done = navigator.clipboard.write([new ClipboardItem({
        "text/html": item("html", "text/html"), "text/plain": item("text", "text/plain") })]);
    } else {
      done = got.then((d) => {
        const put = (e) => {
          e.clipboardData.setData("text/html", d.html);
          e.clipboardData.setData("text/plain", d.text);
          e.preventDefault();
        };
        document.addEventListener("copy", put);
        const copied = document.execCommand("copy");
        document.removeEventListener("copy", put);
        return copied || navigator.clipboard.writeText(d.text);
      });
    }
    done.then(() => b.dataset.copied, () => b.dataset.failed)
      .then((t) => { b.textContent = t; setTimeout(() => { b.textContent = was; }, 2000); });
  }

  document.addEventListener("click", (ev) => {
    const button = ev.target.closest("[data-ceremony]");
    if (button) {
      ev.preventDefault();
      if (!window.PublicKeyCredential) {
        const status = document.getElementById("ceremony-status");
        if (status) { status.textContent = button.dataset.unsupported || ""; status.className = "error"; }
        return;
      }
      ceremony(button);
      return;
    }
    const sig = ev.target.closest("[data-signature]");
    if (sig) { copySignature(sig); return; }
    const copy = ev.target.closest("[data-copy]");
    if (copy) {
      const source = document.getElementById(copy.dataset.copy);
      if (source && navigator.clipboard) {
        navigator.clipboard.writeText(source.textContent.trim()).then(() => {
          const was = copy.textContent;
          copy.textContent = copy.dataset.copied || was;
          setTimeout(() => { copy.textContent = was; }, 2000);
        });
      }
    }
  });

  // Enter in a ceremony's form (a new passkey's name) starts the ceremony.
  document.addEventListener("submit", (ev) => {
    const button = ev.target.querySelector("[data-ceremony]");
    if (button) { ev.preventDefault(); if (!button.disabled) button.click(); }
  });

  // Copy buttons need the script: they are hidden until it runs.
  for (const b of document.querySelectorAll("[data-copy][hidden],[data-signature][hidden]")) {
    if (b.dataset.copy || navigator.clipboard) b.hidden = false;
  }
})();
