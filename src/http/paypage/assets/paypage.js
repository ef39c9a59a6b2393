// The pay page's only script (served inline with the response's CSP nonce). The page works without
// it; it moves focus to an error or decline message, stops a second submission of a form, says
// "processing" in the polite live region (#pl-status), and gives an interrupted submission its
// form back: when the page is shown again (back/forward) and after BUSY_MS without an answer (the
// browser's Stop, a lost connection). A second submission is then safe: the server's lease
// refuses it while the first one is still being paid ("busy").
(function () {
  var BUSY_MS = 90000;
  var alertBox = document.getElementById('pl-alert');
  if (alertBox) alertBox.focus();
  var status = document.getElementById('pl-status');
  var forms = document.querySelectorAll('form[data-pl-form]');
  var timer = null;
  function release() {
    if (timer) clearTimeout(timer);
    timer = null;
    for (var i = 0; i < forms.length; i++) {
      forms[i].removeAttribute('data-busy');
      var button = forms[i].querySelector('button[type=submit][data-processing]');
      if (button && button.hasAttribute('data-label')) {
        button.textContent = button.getAttribute('data-label');
        button.removeAttribute('aria-disabled');
      }
    }
    if (status) status.textContent = '';
  }
  for (var i = 0; i < forms.length; i++) {
    forms[i].addEventListener('submit', function (event) {
      var form = event.currentTarget;
      if (form.getAttribute('data-busy')) {
        event.preventDefault();
        return;
      }
      form.setAttribute('data-busy', '1');
      var button = form.querySelector('button[type=submit][data-processing]');
      if (button) {
        if (!button.hasAttribute('data-label')) button.setAttribute('data-label', button.textContent);
        button.setAttribute('aria-disabled', 'true');
        button.textContent = button.getAttribute('data-processing');
        if (status) status.textContent = button.getAttribute('data-processing-status') || button.getAttribute('data-processing');
      }
      if (timer) clearTimeout(timer);
      timer = setTimeout(release, BUSY_MS);
    });
  }
  window.addEventListener('pageshow', release);
})();
