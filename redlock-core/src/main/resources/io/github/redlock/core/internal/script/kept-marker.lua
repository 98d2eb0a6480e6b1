-- Reads, and keeps, the marker of since which of its server processes a node's data set has been complete (it held
-- every key of every lease that depended on it) and logged write by write (appendonly yes, appendfsync always), as
-- clients saw it: KEYS[1] the marker, on the node itself; ARGV[1] the node's run_id now; ARGV[2] 'set' to set the
-- marker where there is none (the node votes, and is durable), 'delete' to delete it (the node is not durable),
-- 'read' to leave it as it is. Returns the marker as it was before, or false. A script, so that its write is logged
-- and replayed exactly as the locks' scripts' writes are: a node that drops those on a restart drops the marker too.
-- A marker of another run_id than the node's own proves that the node came back with the data it acknowledged
-- before it started, and that this data was complete.
if redis.replicate_commands then redis.replicate_commands() end
local before = redis.call('get', KEYS[1])
if ARGV[2] == 'set' then
    if not before then
        redis.call('set', KEYS[1], ARGV[1])
    end
elseif ARGV[2] == 'delete' and before then
    redis.call('del', KEYS[1])
end
return before
