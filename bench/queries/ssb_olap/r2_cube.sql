-- CUBE: revenue by ship mode and order priority, every combination of subtotals
select lo_shipmode, lo_orderpriority, sum(lo_revenue) as revenue, cast(grouping(lo_shipmode, lo_orderpriority) as integer) as g
from lineorder
group by cube (lo_shipmode, lo_orderpriority)
order by g, lo_shipmode, lo_orderpriority;
