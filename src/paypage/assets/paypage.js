// The pay page's only script (served inline with the response's CSP nonce). The page works without
// it; it moves focus to an error or decline message, and stops a second submission of a form.
(function () {
  var alertBox = document.getElementById('pl-alert');
  if (alertBox) alertBox.focus();
  var forms = document.querySelectorAll('form[data-pl-form]');
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
        button.setAttribute('aria-disabled', 'true');
        button.textContent = button.getAttribute('data-processing');
      }
    });
  }
})();
