"""The trace page's inline style sheet, script and Content-Security-Policy: inline because the page fetches nothing
(agent.tracing.render_html writes the page)."""

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 48px;
color:#1d232b;background:#fff}
h1{font-size:20px;margin:18px 0 4px}
h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #dde3ea;padding-bottom:4px}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f5f7fa;border:1px solid #e3e8ee;padding:6px 8px;overflow:auto;max-height:360px;white-space:pre-wrap;
word-break:break-word}
table{border-collapse:collapse;width:100%;margin:4px 0}
th,td{border-bottom:1px solid #e8ecf1;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f3f5f8;font-weight:600}td.num,th.num{text-align:right;white-space:nowrap}
nav a{margin-right:10px}.q{font-size:15px;margin:4px 0 8px}.muted{color:#66707c}
.badge{display:inline-block;padding:0 6px;border-radius:8px;background:#e8edf3;font-size:12px;margin-left:4px}
.ok{background:#d9f2e1}.bad{background:#fbdada}.warn{background:#fdf0cf}
details.run{margin:2px 0 2px 14px;border-left:2px solid #e1e6ec;padding-left:6px}
details.run>summary,details.io>summary{cursor:pointer}
.runbody{margin:4px 0 6px 8px}.route{color:#2a5b9e;margin:2px 0}
.timeline .row{display:flex;align-items:center;margin:2px 0}
.timeline .label{width:190px;flex:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.timeline .track{position:relative;flex:1;height:14px;background:#f1f4f7;border-radius:3px}
.timeline .bar{position:absolute;top:0;height:14px;background:#5b8dd6;border-radius:3px;min-width:2px}
.timeline .ms{width:80px;text-align:right;flex:none}
article.record{border:1px solid #e3e8ee;border-radius:6px;padding:6px 10px;margin:8px 0}
article.record:target{outline:2px solid #5b8dd6}
.ids code{margin-right:10px}
mark{background:#fff3b0}mark.support{background:#cdeccf}mark.contradict{background:#f7c9c9}
mark.neutral{background:#e6e9ee}
td{overflow-wrap:break-word}svg.meter{max-width:480px}
.legend .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 3px 0 8px}
table.papers td.answer,table.papers td.design,table.papers td.num,table.papers td.record{white-space:nowrap;
overflow-wrap:normal}
table.papers tr.paper td{border-bottom:none}
table.papers tr.quote td{color:#66707c;padding:0 6px 6px 24px}
@media (max-width:640px){table:not(.papers){display:block;overflow-x:auto}table.papers thead{display:none}
table.papers tr.paper{display:flex;flex-wrap:wrap;gap:0 8px;padding-top:4px}
table.papers tr.paper td{padding:0 2px}table.papers tr.paper td.title{flex-basis:100%}
table.papers tr.quote{display:block}table.papers tr.quote td{display:block;padding-left:12px}
table.papers td.num::before{content:"sample size "}}
"""

SCRIPT = """
function setAll(open){document.querySelectorAll('details').forEach(function(d){d.open=open;});}
function revealTarget(){var t=location.hash&&document.getElementById(location.hash.slice(1));
 for(var e=t;e;e=e.parentElement){if(e.tagName==='DETAILS'){e.open=true;}}}
window.addEventListener('hashchange',revealTarget);revealTarget();
"""
