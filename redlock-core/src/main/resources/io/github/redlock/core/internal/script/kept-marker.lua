-- Reads, and keeps, the marker of the last server process under which a node's data set was complete (it held every
-- key of every lease that depended on it) and logged write by write (appendonly yes, appendfsync always), as clients
-- saw it: KEYS[1] the marker, on the node itself; ARGV[1] the node's run_id now and its server, run_id@host:port;
-- ARGV[2] 'set' to make the marker name ARGV[1] (the node votes, and is durable), 'delete' to delete it (the node is
-- not durable), 'read' to leave it as it is. Returns the marker as it was before, or false. A script, so that its write
-- is logged and replayed exactly as the locks' writes are: a node that drops those on a restart drops the marker too.
-- A marker that names the process which ran on the same server just before the one answering proves that the node
-- came back with the data it acknowledged, and that this data was complete. One that arrived by replication names the
-- former master's process and server, never the promoted replica's own.
if redis.replicate_commands then redis.replicate_commands() end
local before = redis.call('get', KEYS[1])
if ARGV[2] == 'set' then
    if before ~= ARGV[1] then
        redis.call('set', KEYS[1], ARGV[1])
    end
elseif ARGV[2] == 'delete' and before then
    redis.call('del', KEYS[1])
end
return before
