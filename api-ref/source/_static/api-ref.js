// The microversion selector of os-api-ref, without jQuery or Bootstrap: hide
// methods and parameters that do not exist at the chosen microversion.
(function () {
  'use strict';

  function minor(cls, prefix) {
    // "rp_min_ver_2_47" -> 47
    return parseInt(cls.slice(prefix.length).split('_')[1], 10);
  }

  function apply(selected) {
    var nodes = document.querySelectorAll('[class*="rp_min_ver_"], [class*="rp_max_ver_"]');
    nodes.forEach(function (node) {
      var hide = false;
      if (selected !== null) {
        node.classList.forEach(function (cls) {
          if (cls.indexOf('rp_min_ver_') === 0 && minor(cls, 'rp_min_ver_') > selected) {
            hide = true;
          }
          if (cls.indexOf('rp_max_ver_') === 0 && minor(cls, 'rp_max_ver_') < selected) {
            hide = true;
          }
        });
      }
      node.classList.toggle('rp-hidden', hide);
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var select = document.getElementById('mv_select');
    if (!select) {
      return;
    }
    select.addEventListener('change', function () {
      apply(select.value ? parseInt(select.value.split('.')[1], 10) : null);
    });
  });
}());
