// The deep-linking answer goes back to the LMS by itself; the button stays for readers
// without scripts. A static file, because the site's CSP runs no inline script.
document.querySelectorAll("form[data-auto-submit]").forEach((form) => form.submit());
