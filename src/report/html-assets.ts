// Inline CSS and JS of the HTML report (kept apart so render-html.ts reads as markup logic).

export const HTML_STYLE = `
:root{--fail:#c62828;--pass:#2e7d32;--unj:#b26a00;--muted:#666;--bg:#fafafa;--line:#e0e0e0}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:var(--bg);color:#222}
header{padding:16px 24px;background:#fff;border-bottom:1px solid var(--line)}h1{font-size:20px;margin:0 0 4px}
main{padding:16px 24px}.meta{color:var(--muted);margin:4px 0 10px}
table{border-collapse:collapse}th,td{padding:4px 10px;text-align:left;vertical-align:top;border-bottom:1px solid var(--line)}
.totals td{font-size:18px;font-weight:600}.filter{display:block;margin-top:10px;color:var(--muted)}
section.test{content-visibility:auto;contain-intrinsic-size:auto 160px;background:#fff;border:1px solid var(--line);border-radius:6px;margin:0 0 16px;padding:10px 16px}
section.test h2{font-size:15px;margin:4px 0 10px}h2 small{color:var(--muted);font-weight:400}.file{color:var(--muted)}
.sym{font-weight:700}.sym.pass{color:var(--pass)}.sym.fail{color:var(--fail)}.sym.unjudgeable{color:var(--unj)}.sym.skip,.sym.pending{color:var(--muted)}
td.fail,.fail>.score{color:var(--fail)}td.unjudgeable{color:var(--unj)}tr.verdict.fail{background:#fff5f5}tr.verdict.unjudgeable{background:#fffaf0}
.verdicts{width:100%}.score{white-space:nowrap;font-variant-numeric:tabular-nums}.category{font-weight:600}
.reason{white-space:pre-wrap}.evidence{margin:4px 0;padding:2px 8px;border-left:3px solid var(--line);color:#444;white-space:pre-wrap}
.judge,.image-ref{color:var(--muted);font-size:12px}pre{white-space:pre-wrap;background:#f5f5f5;padding:8px;border-radius:4px;overflow:auto}
pre.error{color:var(--fail);max-height:16em}figure{margin:6px 0}figure img{max-width:360px;max-height:240px;border:1px solid var(--line)}
figcaption{color:var(--muted);font-size:12px}.trace{margin-top:10px}.trace summary{cursor:pointer;color:var(--muted)}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:18px}ul.tree{padding-left:4px}li.span{margin:1px 0}
.kind{color:var(--muted)}li.span.failed>.name{color:var(--fail);font-weight:600}li.span.failed>.kind{color:var(--fail)}
code.id{color:#999;font-size:11px}ul.span-verdicts{list-style:none;padding-left:14px;margin:2px 0}
.expected{color:var(--muted);font-style:italic}li.span-verdict.fail{background:#fff0f0}li.span-verdict.unjudgeable{background:#fff8e6}li.span-verdict.pass{color:var(--muted)}
body.only-failing section.test:not(.has-failures){display:none}.empty{color:var(--muted)}
`

export const HTML_SCRIPT = `
var table = document.getElementById('av-images')
if (table) {
  var images = JSON.parse(table.textContent)
  document.querySelectorAll('img[data-image]').forEach(function (img) {
    var url = images[img.getAttribute('data-image')]
    if (typeof url === 'string' && url.indexOf('data:image/') === 0) img.src = url
  })
}
document.getElementById('only-failing').addEventListener('change', function (ev) {
  document.body.classList.toggle('only-failing', ev.target.checked)
})
`
