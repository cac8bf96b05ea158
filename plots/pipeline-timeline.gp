# Pipeline timeline, 1f1b: 4 stages, 8 microbatches, tb = 2 tf; step 33 tf, 27.3 % idle
# commtime pipeline --timeline: the simulated schedule, one row per stage
# A gnuplot script written by commtime; 'gnuplot FILE' draws './pipeline-timeline.svg'.
# The data is inline below; edit titles, colours or sizes freely.
# The text is UTF-8 (add 'set encoding utf8' in a Latin-1 locale).

set terminal svg size 1000,300 dynamic noenhanced font 'sans,11' background '#ffffff'
set output './pipeline-timeline.svg'
set border lw 1 lc rgb '#444444'
set tics nomirror out
set border 3

# panel 1, series 1: forward
$p1s1 << EOD
0 1 -0.4 0.4
1 2 -0.4 0.4
2 3 -0.4 0.4
3 4 -0.4 0.4
12 13 -0.4 0.4
15 16 -0.4 0.4
18 19 -0.4 0.4
21 22 -0.4 0.4
1 2 0.6 1.4
2 3 0.6 1.4
3 4 0.6 1.4
10 11 0.6 1.4
13 14 0.6 1.4
16 17 0.6 1.4
19 20 0.6 1.4
22 23 0.6 1.4
2 3 1.6 2.4
3 4 1.6 2.4
8 9 1.6 2.4
11 12 1.6 2.4
14 15 1.6 2.4
17 18 1.6 2.4
20 21 1.6 2.4
23 24 1.6 2.4
3 4 2.6 3.4
6 7 2.6 3.4
9 10 2.6 3.4
12 13 2.6 3.4
15 16 2.6 3.4
18 19 2.6 3.4
21 22 2.6 3.4
24 25 2.6 3.4
EOD

# panel 1, series 2: backward
$p1s2 << EOD
10 12 -0.4 0.4
13 15 -0.4 0.4
16 18 -0.4 0.4
19 21 -0.4 0.4
22 24 -0.4 0.4
25 27 -0.4 0.4
28 30 -0.4 0.4
31 33 -0.4 0.4
8 10 0.6 1.4
11 13 0.6 1.4
14 16 0.6 1.4
17 19 0.6 1.4
20 22 0.6 1.4
23 25 0.6 1.4
26 28 0.6 1.4
29 31 0.6 1.4
6 8 1.6 2.4
9 11 1.6 2.4
12 14 1.6 2.4
15 17 1.6 2.4
18 20 1.6 2.4
21 23 1.6 2.4
24 26 1.6 2.4
27 29 1.6 2.4
4 6 2.6 3.4
7 9 2.6 3.4
10 12 2.6 3.4
13 15 2.6 3.4
16 18 2.6 3.4
19 21 2.6 3.4
22 24 2.6 3.4
25 27 2.6 3.4
EOD

# ---- panel 1: Pipeline timeline, 1f1b: 4 stages, 8 microbatches, tb = 2 tf; step 33 tf, 27.3 % idle
unset label
unset arrow
unset logscale
set autoscale
set title 'Pipeline timeline, 1f1b: 4 stages, 8 microbatches, tb = 2 tf; step 33 tf, 27.3 % idle'
set xlabel 'time (units of tf, one forward of one microbatch)'
set ylabel 'stage'
set xtics autofreq
set mxtics default
set format x '%g'
set xrange [0:33]
set ytics 1
set mytics 1
set format y '%.0f'
set yrange [3.5:-0.5]
set grid xtics ytics mxtics mytics lc rgb '#dddddd' lw 1, lc rgb '#f0f0f0' lw 1
set key rmargin top vertical opaque box lc rgb '#cccccc'
# marked points
set label '0' at 0.5, 0 center front
set label '1' at 1.5, 0 center front
set label '2' at 2.5, 0 center front
set label '3' at 3.5, 0 center front
set label '0' at 11, 0 center front
set label '4' at 12.5, 0 center front
set label '1' at 14, 0 center front
set label '5' at 15.5, 0 center front
set label '2' at 17, 0 center front
set label '6' at 18.5, 0 center front
set label '3' at 20, 0 center front
set label '7' at 21.5, 0 center front
set label '4' at 23, 0 center front
set label '5' at 26, 0 center front
set label '6' at 29, 0 center front
set label '7' at 32, 0 center front
set label '0' at 1.5, 1 center front
set label '1' at 2.5, 1 center front
set label '2' at 3.5, 1 center front
set label '0' at 9, 1 center front
set label '3' at 10.5, 1 center front
set label '1' at 12, 1 center front
set label '4' at 13.5, 1 center front
set label '2' at 15, 1 center front
set label '5' at 16.5, 1 center front
set label '3' at 18, 1 center front
set label '6' at 19.5, 1 center front
set label '4' at 21, 1 center front
set label '7' at 22.5, 1 center front
set label '5' at 24, 1 center front
set label '6' at 27, 1 center front
set label '7' at 30, 1 center front
set label '0' at 2.5, 2 center front
set label '1' at 3.5, 2 center front
set label '0' at 7, 2 center front
set label '2' at 8.5, 2 center front
set label '1' at 10, 2 center front
set label '3' at 11.5, 2 center front
set label '2' at 13, 2 center front
set label '4' at 14.5, 2 center front
set label '3' at 16, 2 center front
set label '5' at 17.5, 2 center front
set label '4' at 19, 2 center front
set label '6' at 20.5, 2 center front
set label '5' at 22, 2 center front
set label '7' at 23.5, 2 center front
set label '6' at 25, 2 center front
set label '7' at 28, 2 center front
set label '0' at 3.5, 3 center front
set label '0' at 5, 3 center front
set label '1' at 6.5, 3 center front
set label '1' at 8, 3 center front
set label '2' at 9.5, 3 center front
set label '2' at 11, 3 center front
set label '3' at 12.5, 3 center front
set label '3' at 14, 3 center front
set label '4' at 15.5, 3 center front
set label '4' at 17, 3 center front
set label '5' at 18.5, 3 center front
set label '5' at 20, 3 center front
set label '6' at 21.5, 3 center front
set label '6' at 23, 3 center front
set label '7' at 24.5, 3 center front
set label '7' at 26, 3 center front
plot \
  $p1s1 using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror fs solid 0.85 border lc rgb '#ffffff' lw 0.5 lc rgb '#0072B2' title 'forward', \
  $p1s2 using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror fs solid 0.85 border lc rgb '#ffffff' lw 0.5 lc rgb '#D55E00' title 'backward'
set output
