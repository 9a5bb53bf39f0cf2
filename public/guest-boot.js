/* The first script of every guest page, and a classic one: it loads the page's module (its
   data-page) and says so when that module, one it imports, or the stylesheet fails or takes longer
   than data-wait-ms, with a Try again that fetches again only what failed. A module graph that
   cannot load runs none of its modules, so none of them could say it; and the pages' CSP allows no
   inline script. Its words are the shell's (#page-failure-words, filled from the catalog in the
   browser's language), as the modules' words may be what failed. */
(() => {
  // the stylesheet's own notice, for when no script runs at all: this one does
  document.getElementById("page-stalled")?.remove()
  const script = document.currentScript
  const region = document.getElementById("page-failure")
  const status = document.getElementById("status")
  const loading = status.textContent
  let button = null
  let retrying = false
  let pageRan = false
  // set by the pages' stylesheet: without it, the page is shown unstyled, and said so
  const styled = () => getComputedStyle(document.documentElement).getPropertyValue("--guest-styles") !== ""

  /** Says what is wrong ("failed" or "slow"); keeps the button, and its focus, across attempts. */
  const fail = (how) => {
    retrying = false
    // "Loading…" is the boot's until the page runs, then the page's own
    if (!pageRan) status.textContent = ""
    const words = document.getElementById("page-failure-words").content
    const said = words.querySelector(`[data-failure="${how}"]`).cloneNode(true)
    if (!button) {
      button = words.querySelector("button").cloneNode(true)
      button.addEventListener("click", retry)
    }
    region.replaceChildren(said, button)
    // a guest who pressed Try again, or whose page has nothing else to act on, is at the button
    if (document.activeElement === null || document.activeElement === document.body) button.focus()
  }
  const settled = () => {
    if (!pageRan || !styled()) return
    if (region.contains(document.activeElement)) document.getElementById("main").focus()
    region.replaceChildren()
    button = null
  }

  const loadPage = () => {
    let answered = false
    const slow = setTimeout(() => answered || fail("slow"), Number(script.dataset.waitMs))
    import(script.dataset.page).then(
      () => {
        answered = pageRan = true
        clearTimeout(slow)
        if (!styled()) return fail("failed")
        settled()
      },
      () => {
        answered = true
        clearTimeout(slow)
        fail("failed")
      }
    )
  }

  /** A stylesheet that did not load, requested again (a failed request is not cached). */
  const loadStyles = () =>
    new Promise((done) => {
      for (const link of document.querySelectorAll("link[rel=stylesheet]")) {
        const again = link.cloneNode()
        again.addEventListener("load", done)
        again.addEventListener("error", done)
        link.replaceWith(again)
      }
    })

  function retry() {
    if (retrying) return
    retrying = true
    if (!pageRan) status.textContent = loading
    if (!styled()) loadStyles().then(() => (styled() ? settled() : fail("failed")))
    if (!pageRan) loadPage()
  }

  loadPage()
})()
