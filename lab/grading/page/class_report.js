(function () {
  var table = document.getElementById("students");
  if (!table) return;
  var help = document.querySelector(".js-only");
  if (help) help.hidden = false;
  var heads = table.tHead.rows[0].cells, body = table.tBodies[0];
  function key(row, column) {
    var value = row.cells[column].getAttribute("data-sort");
    if (value === null) value = row.cells[column].textContent;
    var number = Number(value);
    return value !== "" && !isNaN(number) ? number : value.toLowerCase();
  }
  Array.prototype.forEach.call(heads, function (head, column) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = head.textContent;
    head.textContent = "";
    head.appendChild(button);
    button.addEventListener("click", function () {
      var ascending = head.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(heads, function (other) { other.removeAttribute("aria-sort"); });
      head.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a, column), y = key(b, column), order = 0;
        if (typeof x === typeof y) order = x < y ? -1 : x > y ? 1 : 0;
        else order = typeof x === "number" ? -1 : 1;
        if (!ascending) order = -order;
        return order || Number(a.getAttribute("data-index")) - Number(b.getAttribute("data-index"));
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
})();
