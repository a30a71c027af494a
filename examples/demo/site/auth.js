// Sign-in logic shared by login.html and broken.html. No server: any
// non-empty email with any non-empty password except "wrong" signs in.
// The user is kept in the acme_user cookie (path=/) and in sessionStorage.
function acmeUser() {
  const m = document.cookie.match(/(?:^|;\s*)acme_user=([^;]*)/);
  if (m) return decodeURIComponent(m[1]);
  return sessionStorage.getItem("acme_user") || "";
}

function acmeNext() {
  const next = new URLSearchParams(location.search).get("next") || "";
  // Only same-site relative pages.
  return /^[a-z0-9_-]+\.html(\?[^#]*)?$/i.test(next) ? next : "catalog.html";
}

function acmeLoginForm(formId, emailId, passwordId, errorId) {
  const form = document.getElementById(formId);
  const submit = () => {
    const email = document.getElementById(emailId).value.trim();
    const password = document.getElementById(passwordId).value;
    const error = document.getElementById(errorId);
    if (!email || !password) {
      error.textContent = "Enter your email and password";
      error.hidden = false;
      return;
    }
    if (password === "wrong") {
      error.textContent = "Invalid email or password";
      error.hidden = false;
      return;
    }
    error.hidden = true;
    document.cookie = "acme_user=" + encodeURIComponent(email) + "; path=/";
    sessionStorage.setItem("acme_user", email);
    location.href = acmeNext();
  };
  form.addEventListener("submit", (e) => { e.preventDefault(); submit(); });
  // broken.html uses a type=button button: click it submits too.
  for (const b of form.querySelectorAll("button[type=button]")) {
    b.addEventListener("click", submit);
  }
}
