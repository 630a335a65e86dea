-- Windowed: 7-row moving average of revenue per customer
select count(*), round(sum(ma) / 1e6, 3), round(max(ma), 3)
from (select avg(lo_revenue) over (partition by lo_custkey
                                   order by lo_orderdate, lo_orderkey, lo_linenumber
                                   rows between 6 preceding and current row) as ma
      from lineorder) t;
