/* The guest forms' fields, from the API's field specs ({name, type, required, max_length, label}),
   and their validation in the browser: `name` is the API's field name. */
import { el } from "./guest-dom.js"
import { LIMITS } from "./guest-i18n.js"
import { hasText, t } from "./guest-text.js"

const AUTOCOMPLETE = { first_name: "given-name", last_name: "family-name", email: "email", phone: "tel", country: "country" }
const INPUT_TYPE = { text: "text", email: "email", tel: "tel", country: "text", time: "time" }
const requiredMark = (required) => (required ? el("span", { class: "req", "aria-hidden": "true" }, " *") : null)

/** A labelled control for a field {name, type, required, max_length, label?}, holding `value`. */
export function fieldControl(field, value) {
  const id = `f-${field.name}`
  const label = field.label || t(field.name)
  if (field.type === "checkbox") {
    return el(
      "div",
      { class: "check" },
      el("input", { type: "checkbox", id, name: field.name, required: field.required, checked: value === true }),
      el("label", { for: id }, label, requiredMark(field.required))
    )
  }
  const hintKey = `hint_${field.name}`
  const hint = hasText(hintKey) ? el("span", { class: "hint", id: `${id}-hint` }, t(hintKey)) : null
  const common = {
    id,
    name: field.name,
    required: field.required,
    maxlength: field.max_length,
    autocomplete: AUTOCOMPLETE[field.name] || "off",
    "aria-describedby": hint ? `${id}-hint` : null
  }
  const control = field.type === "textarea"
    ? el("textarea", { ...common, rows: 4 })
    : el("input", {
      ...common,
      type: INPUT_TYPE[field.type] || "text",
      class: field.type === "country" || field.type === "time" ? "short" : null,
      // the API's rules, checked before sending
      pattern: field.type === "country" ? LIMITS.countryPattern : field.type === "tel" ? LIMITS.phonePattern : null,
      autocapitalize: field.type === "country" ? "characters" : field.type === "text" ? "words" : null,
      spellcheck: field.type === "email" ? "false" : null
    })
  if (typeof value === "string") control.value = value
  return el("div", { class: "field" }, el("label", { for: id }, label, requiredMark(field.required)), hint, control)
}

/** The form's named controls, and their visible labels. */
export const controlsOf = (form) => [...form.elements].filter((e) => e.name)
const labelOf = (form, control) => form.querySelector(`label[for="${control.id}"]`)?.firstChild?.textContent || control.name

/**
 * Checks the form in the browser; marks what is wrong and answers the message to show (null if
 * all is well). A 400 from the API is mapped to the same message by `serverFieldError`.
 */
export function checkForm(form) {
  for (const e of controlsOf(form)) e.removeAttribute("aria-invalid")
  const invalid = controlsOf(form).filter((e) => !e.checkValidity())
  return markInvalid(form, invalid)
}
const markInvalid = (form, invalid) => {
  if (invalid.length === 0) return null
  for (const e of invalid) e.setAttribute("aria-invalid", "true")
  invalid[0].focus()
  return t("checkFields", { list: invalid.map((e) => labelOf(form, e)).join(", ") })
}

/** A 400's message names the field (`phone: must be …`): the same message in the page's language. */
export function serverFieldError(form, error) {
  const text = (error && error.message) || ""
  const named = error && error.details && typeof error.details.field === "string" ? error.details.field : null
  const target = controlsOf(form).find((e) => e.name === named) ||
    controlsOf(form).find((e) => new RegExp(`(^|[^a-z_])${e.name}([^a-z_]|$)`).test(text))
  return target ? markInvalid(form, [target]) : t("failed")
}
