-- Exclusive lock on several keys at once, one node: all or none (after multi-prelude.lua). KEYS the lock's keys
-- (distinct, sorted). Sets every key to the token only when none of them exists, so each key also excludes and
-- is excluded by the single-key lock of its name. Returns 1 when set, else the prelude's refusal. Never sets
-- part of the keys.
local refused = refusal(#KEYS)
if refused then
    return refused
end
set_all(#KEYS)
return 1
