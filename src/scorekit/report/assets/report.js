(function(){
  'use strict';
  function val(td){
    var v = td.getAttribute('data-value');
    if (v !== null) { var f = parseFloat(v); return isNaN(f) ? null : f; }
    return td.textContent.trim().toLowerCase();
  }
  function sortBy(table, col, th){
    var body = table.tBodies[0]; if (!body) return;
    var asc = th.getAttribute('aria-sort') !== 'ascending';
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(c){ c.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function(a, b){
      var x = val(a.cells[col]), y = val(b.cells[col]);
      if (x === null && y === null) return 0; if (x === null) return 1; if (y === null) return -1;
      if (typeof x === 'number' && typeof y === 'number') return asc ? x - y : y - x;
      return asc ? String(x).localeCompare(String(y)) : String(y).localeCompare(String(x));
    });
    rows.forEach(function(r){ body.appendChild(r); });
  }
  document.querySelectorAll('table.sortable').forEach(function(table){
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th, i){
      th.addEventListener('click', function(){ sortBy(table, i, th); });
    });
  });
  document.querySelectorAll('input.sk-filter').forEach(function(input){
    var table = input.parentNode.querySelector('table');
    if (!table) return;
    input.addEventListener('input', function(){
      var q = input.value.normalize('NFC').toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function(r){
        r.hidden = q !== '' && r.textContent.normalize('NFC').toLowerCase().indexOf(q) < 0;
      });
    });
  });
})();
