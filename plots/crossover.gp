# All-reduce crossover size, α = 4.00 µs, β = 370 GB/s (h100-nvlink4)
# commtime crossover: the size where two all-reduce algorithms take equal time
# A gnuplot script written by commtime; 'gnuplot FILE' draws 'crossover.svg'.
# The data is inline below; edit titles, colours or sizes freely.
# The text is UTF-8 (add 'set encoding utf8' in a Latin-1 locale).

set terminal svg size 800,500 dynamic noenhanced font 'sans,11' background '#ffffff'
set output 'crossover.svg'
set border lw 1 lc rgb '#444444'
set tics nomirror out
set border 3

# panel 1, series 1: tree faster
$p1s1 << EOD
2 1 1
4 1 1184000.0000000016
8 1 2785882.3529411764
16 1 5315918.367346933
32 1 9545426.35658913
64 1 16819439.252336394
128 1 29561508.45253583
256 1 52193731.176798545
512 1 92847332.19428852
1024 1 166564148.85537565
EOD

# panel 1, series 2: ring faster
$p1s2 << EOD
2 1 1125899906842624
4 1184000.0000000016 1125899906842624
8 2785882.3529411764 1125899906842624
16 5315918.367346933 1125899906842624
32 9545426.35658913 1125899906842624
64 16819439.252336394 1125899906842624
128 29561508.45253583 1125899906842624
256 52193731.176798545 1125899906842624
512 92847332.19428852 1125899906842624
1024 166564148.85537565 1125899906842624
EOD

# panel 1, series 3: ring = tree
$p1s3 << EOD
4 1184000.0000000016
8 2785882.3529411764
16 5315918.367346933
32 9545426.35658913
64 16819439.252336394
128 29561508.45253583
256 52193731.176798545
512 92847332.19428852
1024 166564148.85537565
EOD

# ---- panel 1: All-reduce crossover size, α = 4.00 µs, β = 370 GB/s (h100-nvlink4)
unset label
unset arrow
unset logscale
set autoscale
set title 'All-reduce crossover size, α = 4.00 µs, β = 370 GB/s (h100-nvlink4)'
set xlabel 'ranks'
set ylabel 'crossover message size'
set logscale x 2
set xtics ('2' 2, '8' 8, '32' 32, '128' 128, '512' 512, '2048' 2048)
set mxtics default
set logscale y 2
set ytics ('128 KiB' 131072, '512 KiB' 524288, '2 MiB' 2097152, '8 MiB' 8388608, '32 MiB' 33554432, '128 MiB' 134217728, '512 MiB' 536870912, '2 GiB' 2147483648)
set mytics default
set yrange [147999.9998520002:1332513192.1755185]
set grid xtics ytics mxtics mytics lc rgb '#dddddd' lw 1, lc rgb '#f0f0f0' lw 1
set key top left opaque box lc rgb '#cccccc'
plot \
  $p1s1 using 1:2:3 with filledcurves fs transparent solid 0.18 noborder lc rgb '#D55E00' title 'tree faster', \
  $p1s2 using 1:2:3 with filledcurves fs transparent solid 0.18 noborder lc rgb '#0072B2' title 'ring faster', \
  $p1s3 using 1:2 with linespoints lw 2 pt 7 ps 0.7 dt 1 lc rgb '#000000' title 'ring = tree'
set output
