-- Windowed: running revenue per customer (ROWS UNBOUNDED PRECEDING; the order key is unique)
select count(*), sum(running), max(running)
from (select sum(lo_revenue) over (partition by lo_custkey
                                   order by lo_orderdate, lo_orderkey, lo_linenumber
                                   rows between unbounded preceding and current row) as running
      from lineorder) t;
