/* dot_html.c - the self-contained HTML viewer: the rendered SVG inline,
 * the instruction data as JSON (full text, operands, users per node), and
 * a small script for pan/zoom, search by name and click-to-inspect, plus a
 * URL-fragment hook that lets a headless browser test drive it. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hlo/hlo_dot.h"
#include "hlo/hlo_text.h"

static const char PAGE_HEAD[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";

static const char PAGE_STYLE[] =
    "</title>\n<style>\n"
    "html,body{margin:0;height:100%;font:13px Helvetica,Arial,sans-serif}\n"
    "#bar{height:34px;display:flex;gap:6px;align-items:center;padding:0 8px;"
    "border-bottom:1px solid #ccc;background:#f6f6f6}\n"
    "#bar input{width:260px}\n#status{color:#555}\n"
    "#main{position:absolute;top:35px;bottom:0;left:0;right:0;display:flex}\n"
    "#view{flex:1;overflow:hidden;cursor:grab;background:#fff}\n"
    "#view svg{width:100%;height:100%}\n"
    "#side{width:34%;max-width:560px;overflow:auto;border-left:1px solid #ccc;padding:6px 10px}\n"
    "#side pre{white-space:pre-wrap;word-break:break-all;font:12px monospace;background:#f8f8f8;"
    "padding:6px}\n"
    ".rel a{color:#0645ad;cursor:pointer;margin-right:8px}\n"
    "g.node{cursor:pointer}\n"
    "g.hlo-sel polygon,g.hlo-sel path,g.hlo-sel ellipse{stroke:#d00000;stroke-width:4px}\n"
    "g.hlo-operand polygon,g.hlo-operand path{stroke:#0060e0;stroke-width:4px}\n"
    "g.hlo-user polygon,g.hlo-user path{stroke:#00a040;stroke-width:4px}\n"
    "g.hlo-found polygon,g.hlo-found path{stroke:#ff9900;stroke-width:5px}\n"
    "#hlo-test-result{display:none}\n"
    "</style></head><body>\n"
    "<div id=\"bar\"><input id=\"q\" placeholder=\"instruction name\" list=\"names\">"
    "<button id=\"find\">Find</button><button id=\"fit\">Fit</button>"
    "<span id=\"status\"></span></div>\n"
    "<div id=\"main\"><div id=\"view\">\n";

static const char PAGE_SIDE[] =
    "</div><div id=\"side\"><div id=\"help\">Drag to pan, wheel to zoom, click a node for its "
    "instruction. Operands are outlined blue, users green.</div>"
    "<h3 id=\"sel-name\"></h3><pre id=\"sel-text\"></pre>"
    "<div class=\"rel\" id=\"sel-ops\"></div><div class=\"rel\" id=\"sel-users\"></div>"
    "</div></div>\n<pre id=\"hlo-test-result\"></pre>\n"
    "<script type=\"application/json\" id=\"hlo-data\">";

static const char PAGE_SCRIPT[] =
    "</script>\n<script>\n"
    "(function(){\n"
    "'use strict';\n"
    "var D=JSON.parse(document.getElementById('hlo-data').textContent).nodes;\n"
    "var view=document.getElementById('view'),svg=view.querySelector('svg');\n"
    "var status=document.getElementById('status');\n"
    "var vb=svg.viewBox.baseVal,home={x:vb.x,y:vb.y,w:vb.width,h:vb.height};\n"
    "svg.removeAttribute('width');svg.removeAttribute('height');\n"
    "function setVB(x,y,w,h){svg.setAttribute('viewBox',x+' '+y+' '+w+' '+h);}\n"
    "function fit(){setVB(home.x,home.y,home.w,home.h);}\n"
    "view.addEventListener('wheel',function(ev){ev.preventDefault();\n"
    " var r=svg.getBoundingClientRect(),b=svg.viewBox.baseVal,k=ev.deltaY>0?1.2:1/1.2;\n"
    " var px=b.x+(ev.clientX-r.left)/r.width*b.width,py=b.y+(ev.clientY-r.top)/r.height*b.height;\n"
    " setVB(px-(px-b.x)*k,py-(py-b.y)*k,b.width*k,b.height*k);},{passive:false});\n"
    "var drag=null,moved=false;\n"
    "view.addEventListener('mousedown',function(ev){drag={x:ev.clientX,y:ev.clientY};moved=false;});\n"
    "window.addEventListener('mouseup',function(){drag=null;});\n"
    "window.addEventListener('mousemove',function(ev){if(!drag)return;\n"
    " var r=svg.getBoundingClientRect(),b=svg.viewBox.baseVal;\n"
    " var dx=(ev.clientX-drag.x)/r.width*b.width,dy=(ev.clientY-drag.y)/r.height*b.height;\n"
    " if(Math.abs(ev.clientX-drag.x)+Math.abs(ev.clientY-drag.y)>3)moved=true;\n"
    " setVB(b.x-dx,b.y-dy,b.width,b.height);drag={x:ev.clientX,y:ev.clientY};});\n"
    "function el(id){return document.getElementById(id);}\n"
    "function center(id){var g=el(id);if(!g)return;var bb=g.getBBox();\n"
    " var m=g.getCTM(),sm=svg.getCTM();\n"
    " var w=Math.max(bb.width*6,400),h=Math.max(bb.height*10,300);\n"
    " var p=svg.createSVGPoint();p.x=bb.x+bb.width/2;p.y=bb.y+bb.height/2;\n"
    " if(m&&sm)p=p.matrixTransform(sm.inverse().multiply(m));\n"
    " setVB(p.x-w/2,p.y-h/2,w,h);}\n"
    "function clear(cls){var v=svg.querySelectorAll('.'+cls);\n"
    " for(var i=0;i<v.length;i++)v[i].classList.remove(cls);}\n"
    "function mark(ids,cls){for(var i=0;i<ids.length;i++){var g=el(ids[i]);if(g)g.classList.add(cls);}}\n"
    "function links(box,title,ids){box.textContent=title+': ';if(!ids.length)box.textContent+='none';\n"
    " ids.forEach(function(id){var a=document.createElement('a');a.textContent=D[id].name;\n"
    "  a.onclick=function(){select(id);center(id);};box.appendChild(a);});}\n"
    "var selected=null;\n"
    "function select(id){var n=D[id];if(!n)return;selected=id;\n"
    " clear('hlo-sel');clear('hlo-operand');clear('hlo-user');\n"
    " mark([id],'hlo-sel');mark(n.operands,'hlo-operand');mark(n.users,'hlo-user');\n"
    " el('sel-name').textContent=n.name+' ('+n.computation+')';\n"
    " el('sel-text').textContent=n.text;\n"
    " links(el('sel-ops'),'operands',n.operands);links(el('sel-users'),'users',n.users);}\n"
    "function search(q){clear('hlo-found');q=q.replace(/^%/,'');if(!q)return null;\n"
    " var hit=null,ids=Object.keys(D);\n"
    " for(var i=0;i<ids.length&&!hit;i++)if(D[ids[i]].name===q)hit=ids[i];\n"
    " for(var j=0;j<ids.length&&!hit;j++)if(D[ids[j]].name.indexOf(q)>=0)hit=ids[j];\n"
    " if(!hit){status.textContent='no instruction matches '+q;return null;}\n"
    " mark([hit],'hlo-found');center(hit);status.textContent='found '+D[hit].name;return hit;}\n"
    "var nodes=svg.querySelectorAll('g.node');\n"
    "for(var i=0;i<nodes.length;i++)(function(g){if(!D[g.id])return;\n"
    " g.addEventListener('click',function(){if(!moved)select(g.id);});})(nodes[i]);\n"
    "var dl=document.createElement('datalist');dl.id='names';\n"
    "Object.keys(D).forEach(function(id){var o=document.createElement('option');o.value=D[id].name;"
    "dl.appendChild(o);});\n"
    "document.body.appendChild(dl);\n"
    "el('find').onclick=function(){var h=search(el('q').value);if(h)select(h);};\n"
    "el('q').addEventListener('keydown',function(ev){if(ev.key==='Enter')el('find').onclick();});\n"
    "el('fit').onclick=fit;\n"
    /* test hook: #search=NAME&click=NAME */
    "var hash=decodeURIComponent(location.hash.replace(/^#/,''));\n"
    "if(hash){var out=[],args={};hash.split('&').forEach(function(kv){var k=kv.indexOf('=');\n"
    "  if(k>0)args[kv.slice(0,k)]=kv.slice(k+1);});\n"
    " if(args.search!==undefined){var vb0=svg.getAttribute('viewBox'),h=search(args.search);\n"
    "  out.push('search '+args.search+': '+(h?'found '+D[h].name:'not found'));\n"
    "  out.push('found-marked: '+svg.querySelectorAll('.hlo-found').length);\n"
    "  out.push('view moved: '+(svg.getAttribute('viewBox')!==vb0?'yes':'no'));}\n"
    " if(args.click!==undefined){var id=null,ks=Object.keys(D);\n"
    "  for(var q=0;q<ks.length;q++)if(D[ks[q]].name===args.click)id=ks[q];\n"
    "  var g=id&&el(id);\n"
    "  if(g){g.dispatchEvent(new MouseEvent('click',{bubbles:true}));}\n"
    "  out.push('click '+args.click+': '+(selected===id&&id?'selected':'no node'));\n"
    "  if(selected===id&&id){\n"
    "   out.push('panel: '+el('sel-text').textContent);\n"
    "   out.push('operands: '+D[id].operands.map(function(x){return D[x].name;}).join(','));\n"
    "   out.push('users: '+D[id].users.map(function(x){return D[x].name;}).join(','));\n"
    "   out.push('marked-operands: '+svg.querySelectorAll('.hlo-operand').length);\n"
    "   out.push('marked-users: '+svg.querySelectorAll('.hlo-user').length);\n"
    "   out.push('marked-selected: '+svg.querySelectorAll('.hlo-sel').length);}}\n"
    " el('hlo-test-result').textContent=out.join('\\n');}\n"
    "})();\n"
    "</script>\n</body></html>\n";

static void html_escape(hlo_buf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '<': hlo_buf_puts(b, "&lt;"); break;
    case '>': hlo_buf_puts(b, "&gt;"); break;
    case '&': hlo_buf_puts(b, "&amp;"); break;
    case '"': hlo_buf_puts(b, "&quot;"); break;
    default: hlo_buf_putc(b, *s);
    }
  }
}

static bool add_str(cJSON *o, const char *k, const char *v) {
  cJSON *s = cJSON_CreateString(v ? v : "");
  if (!s) return false;
  if (!cJSON_AddItemToObject(o, k, s)) {
    cJSON_Delete(s);
    return false;
  }
  return true;
}

/* {"nodes":{"n3":{"name","opcode","computation","text","operands":[ids],"users":[ids]}}} */
static cJSON *node_data(const hlo_dot_graph *g) {
  cJSON *doc = cJSON_CreateObject();
  cJSON *nodes = doc ? cJSON_CreateObject() : NULL;
  if (!nodes || !cJSON_AddItemToObject(doc, "nodes", nodes)) {
    cJSON_Delete(nodes);
    cJSON_Delete(doc);
    return NULL;
  }
  cJSON **objs = calloc((size_t)g->nnodes + 1, sizeof *objs);
  if (!objs) goto fail;
  hlo_buf t;
  hlo_buf_init(&t, NULL);
  for (int i = 0; i < g->nnodes; i++) {
    const hlo_dot_node *nd = &g->nodes[i];
    if (!nd->in) continue;
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToObject(nodes, nd->id, o)) {
      cJSON_Delete(o);
      goto fail_t;
    }
    objs[i] = o;
    t.len = 0;
    hlo_print_instruction(&t, nd->in, NULL);
    hlo_buf_putc(&t, 0);
    if (t.failed || !add_str(o, "name", nd->in->name) || !add_str(o, "opcode", hlo_opcode_name(nd->in->op)) ||
        !add_str(o, "computation", nd->in->parent ? nd->in->parent->name : "") || !add_str(o, "text", t.data))
      goto fail_t;
    cJSON *ops = cJSON_CreateArray(), *users = cJSON_CreateArray();
    bool ok1 = ops && cJSON_AddItemToObject(o, "operands", ops);
    if (!ok1) cJSON_Delete(ops);
    bool ok2 = users && cJSON_AddItemToObject(o, "users", users);
    if (!ok2) cJSON_Delete(users);
    if (!ok1 || !ok2) goto fail_t;
  }
  for (int i = 0; i < g->nedges; i++) {
    const hlo_dot_edge *e = &g->edges[i];
    if (e->kind == HLO_DOT_EDGE_CUT || !objs[e->from] || !objs[e->to]) continue;
    cJSON *a = cJSON_GetObjectItemCaseSensitive(objs[e->to], "operands");
    cJSON *b = cJSON_GetObjectItemCaseSensitive(objs[e->from], "users");
    cJSON *sa = cJSON_CreateString(g->nodes[e->from].id), *sb = cJSON_CreateString(g->nodes[e->to].id);
    bool ok = sa && sb && cJSON_AddItemToArray(a, sa);
    if (!ok) cJSON_Delete(sa);
    bool ok2 = ok && cJSON_AddItemToArray(b, sb);
    if (!ok2) cJSON_Delete(sb);
    if (!ok2) goto fail_t;
  }
  hlo_buf_release(&t);
  free(objs);
  return doc;
fail_t:
  hlo_buf_release(&t);
fail:
  free(objs);
  cJSON_Delete(doc);
  return NULL;
}

int hlo_dot_html(hlo_buf *out, const hlo_dot_graph *g, const char *svg, size_t svg_len,
                 const char *title) {
  cJSON *data = node_data(g);
  char *json = data ? cJSON_PrintUnformatted(data) : NULL;
  cJSON_Delete(data);
  if (!json) return HLO_ERR;
  hlo_buf_puts(out, PAGE_HEAD);
  html_escape(out, title ? title : "HLO graph");
  hlo_buf_puts(out, PAGE_STYLE);
  /* the <svg> element only: drop the XML prolog, doctype and comments */
  const char *start = svg;
  for (size_t i = 0; i + 4 <= svg_len; i++) {
    if (memcmp(svg + i, "<svg", 4) == 0) {
      start = svg + i;
      break;
    }
  }
  hlo_buf_put(out, start, svg_len - (size_t)(start - svg));
  hlo_buf_puts(out, PAGE_SIDE);
  for (const char *p = json; *p; p++) { /* '<' only occurs inside JSON strings */
    if (*p == '<') hlo_buf_puts(out, "\\u003c");
    else hlo_buf_putc(out, *p);
  }
  cJSON_free(json);
  hlo_buf_puts(out, PAGE_SCRIPT);
  return out->failed ? HLO_ERR : HLO_OK;
}
