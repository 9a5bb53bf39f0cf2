/* Building the guest pages' DOM without markup strings: nothing the API answers is parsed as HTML. */

/** el("p", { class: "x", onclick: f }, "text", child): attributes with true are set empty, false/null skipped. */
export const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v)
    else node.setAttribute(k, v === true ? "" : String(v))
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c)
  return node
}
