#!/usr/bin/env python3
# The key-value store of kv_store.mjs as an executable: it speaks the environment protocol,
# one JSON object per line over stdin/stdout (see docs/format.md, "Agent tasks").
import json
import sys

CAPITALS = {"fr": "Paris", "de": "Berlin", "it": "Rome", "es": "Madrid"}


def schema(props, required):
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


TOOLS = [
    {"name": "get", "description": "Read the value stored under a key.",
     "parameters": schema({"key": {"type": "string"}}, ["key"])},
    {"name": "set", "description": "Store a value under a key.",
     "parameters": schema({"key": {"type": "string"}, "value": {"type": "string"}}, ["key", "value"])},
    {"name": "list", "description": "List the stored keys.", "parameters": schema({}, [])},
]

store = {}
lookups = 0


def call(tool, args):
    global lookups
    if tool == "get":
        lookups += 1
        if args["key"] not in store:
            return {"error": f"no value under {json.dumps(args['key'])}"}
        return {"result": store[args["key"]]}
    if tool == "set":
        store[args["key"]] = args["value"]
        return {"result": "ok"}
    if tool == "list":
        return {"result": sorted(store)}
    return {"error": f"unknown tool {tool}"}


for line in sys.stdin:
    m = json.loads(line)
    if m["op"] == "reset":
        store = dict(m.get("args", {}).get("data", CAPITALS))
        lookups = 0
        out = {"tools": TOOLS}
    elif m["op"] == "call":
        out = call(m["tool"], m.get("args", {}))
    elif m["op"] == "state":
        out = {"store": store, "lookups": lookups}
    else:
        out = {"error": f"unknown request {m['op']}"}
    print(json.dumps(out), flush=True)
