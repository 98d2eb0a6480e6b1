-- Exclusive lock on several keys at once with a fencing token, one node: all or none (after multi-prelude.lua and
-- fence-prelude.lua).
-- KEYS[1 .. n-1] the lock's keys (distinct, sorted), KEYS[n] the node's fencing counter. Sets every lock key as
-- acquire-multi.lua does and, where it set them, raises the counter by one. Returns the counter afterwards (at
-- least 1) when set, else the prelude's refusal.
local refused = refusal(#KEYS - 1)
if refused then
    return refused
end
set_all(#KEYS - 1)
return next_fence(KEYS[#KEYS])
