#!/usr/bin/perl
# gen_wait_event_names.pl: build the wait event id -> name table of one
# PostgreSQL major version from that server's installed headers.
#
#   gen_wait_event_names.pl TAG SERVER_INCLUDE_DIR POSTGRES_BINARY [SOURCE_DIR]
#
# The headers give every id: the class bases (PG_WAIT_*), the enum of each
# class, the individual LWLocks and built-in tranches, the lock tag types.
# They do not give the display names, which PostgreSQL keeps in .c files, so
# a name is taken from the server binary's read-only strings: the one string
# that equals the enum name with underscores dropped, ignoring case (the
# rule PostgreSQL's own generators follow), preferring one that starts with
# a capital (GUC names do not), then a capitalised tail of a longer string
# (the linker merges "LockManager" into "PredicateLockManager"). A source or
# build tree, when given, is exact and wins: the event switch of pgstat.c
# (PG13), wait_event.c (PG14-16) or the generated pgstat_wait_event.c
# (PG17+), and the tranche names of lwlock.c. PG13 keeps the class bases
# and event enums in pgstat.h, PG14-16 in utils/wait_event.h, PG17+ in the
# generated utils/wait_event_types.h. An id still ambiguous or unmatched is left out
# and printed as hex at run time, never guessed. Lock tag names are the
# fixed LockTagTypeNames list, checked against the enum. Writes a C file to
# stdout and the ids left out to stderr; fails on anything unexpected.
use strict;
use warnings;

my ($tag, $inc, $bin, $srcdir) = @ARGV;
die "usage: $0 TAG SERVER_INCLUDE_DIR POSTGRES_BINARY [SOURCE_DIR]\n"
	unless defined $bin && $tag =~ /^\w+$/;
-d "$inc/utils" or die "$0: $inc/utils: not a server include directory\n";
-r $bin or die "$0: $bin: cannot read the server binary\n";

sub slurp { my ($f) = @_; open(my $fh, '<', $f) or return undef; local $/; my $t = <$fh>; close $fh; return $t; }
sub norm { my ($s) = @_; $s =~ s/_//g; return uc $s; }

# Display-name candidates: identifier-like strings of the binary, and
# their capitalised tails.
my (%cand, %tail);
open(my $sfh, '-|', 'strings', '-a', '-n', '2', $bin) or die "$0: strings: $!\n";
while (my $s = <$sfh>)
{
	chomp $s;
	next unless $s =~ /^[A-Za-z][A-Za-z0-9]*$/;
	$cand{uc $s}{$s} = 1;
	while ($s =~ /(?<=[a-z0-9])(?=[A-Z])/g) { my $t = substr($s, pos($s)); $tail{uc $t}{$t} = 1; }
}
close $sfh;
die "$0: no strings read from $bin (is binutils' strings installed?)\n" unless %cand;

# Exact names from a source or build tree, when given.
my %exact;
if (defined $srcdir)
{
	-d $srcdir or die "$0: $srcdir: not a directory\n";
	open(my $ffh, '-|', 'find', $srcdir, '-name', 'wait_event.c', '-o', '-name', 'pgstat_wait_event.c',
		'-o', '-name', 'pgstat.c', '-o', '-name', 'lwlock.c') or die "$0: find: $!\n";
	my @files = <$ffh>;
	close $ffh;
	for my $f (@files)
	{
		chomp $f;
		my $t = slurp($f) // die "$0: $f: $!\n";
		while ($t =~ /case\s+WAIT_EVENT_(\w+):\s*event_name\s*=\s*"([^"]+)"/g) { $exact{$1} = $2; }
		while ($t =~ /\[LWTRANCHE_(\w+)\]\s*=\s*"([^"]+)"/g) { $exact{$1} = $2; }
		# PG13: the tranche's enum name is a comment above its string.
		while ($t =~ m{/\*\s*LWTRANCHE_(\w+):\s*\*/\s*"([^"]+)"}g) { $exact{$1} = $2; }
	}
}

my @warnings;
sub pick
{
	my ($set) = @_;
	return () unless $set;
	my @n = sort keys %$set;
	my @upper = grep { /^[A-Z]/ } @n;
	return @upper ? @upper : @n;
}
sub display_name
{
	my ($enum) = @_;
	return $exact{$enum} if exists $exact{$enum};
	my @n = pick($cand{norm($enum)});
	@n = pick($tail{norm($enum)}) unless @n;
	return $n[0] if @n == 1;
	push @warnings, @n ? "ambiguous name for $enum: @n" : "no name for $enum";
	return undef;
}

# Class bases.
my $classes_h = slurp("$inc/utils/wait_classes.h") // slurp("$inc/utils/wait_event.h")
	// slurp("$inc/pgstat.h") // die "$0: no wait_event.h or pgstat.h under $inc\n";
my %base;
while ($classes_h =~ /#define\s+PG_WAIT_(\w+)\s+0x([0-9A-Fa-f]+)U/g) { $base{$1} = hex($2); }
die "$0: no PG_WAIT_* class bases found\n" unless exists $base{LWLOCK} && exists $base{IO};

my %names;	# id -> name
sub add
{
	my ($id, $name) = @_;
	return unless defined $name;
	die sprintf("%s: id 0x%08X named twice (%s, %s)\n", $0, $id, $names{$id}, $name)
		if exists $names{$id} && $names{$id} ne $name;
	$names{$id} = $name;
}

# Event enums: PG17+ generate them into wait_event_types.h.
# PG13 has no utils/wait_event.h: its enums are in pgstat.h.
my $events_h = (slurp("$inc/utils/wait_event_types.h") // '') . (slurp("$inc/utils/wait_event.h") // '');
$events_h = slurp("$inc/pgstat.h") // '' unless -e "$inc/utils/wait_event.h";
my %class_has_enum;
while ($events_h =~ /typedef\s+enum\s*\{(.*?)\}\s*WaitEvent(\w+)\s*;/sg)
{
	my ($body, $cls) = ($1, $2);
	$body =~ s{/\*.*?\*/}{}sg;
	my $val;
	for my $item (split /,/, $body)
	{
		$item =~ s/^\s+|\s+$//g;
		next if $item eq '';
		$item =~ /^WAIT_EVENT_(\w+)(?:\s*=\s*PG_WAIT_(\w+))?$/ or die "$0: unexpected enum item '$item'\n";
		if (defined $2) { die "$0: unknown class PG_WAIT_$2\n" unless exists $base{$2}; $val = $base{$2}; $class_has_enum{$2} = 1; }
		elsif (!defined $val) { die "$0: enum WaitEvent$cls has no base\n"; }
		else { $val++; }
		add($val, display_name($1));
	}
}
# PG13-16 have no enum for the one-event classes: the event is the class itself.
add($base{BUFFER_PIN} // $base{BUFFERPIN}, 'BufferPin')
	unless $class_has_enum{BUFFER_PIN} || $class_has_enum{BUFFERPIN};
add($base{EXTENSION}, 'Extension') unless $class_has_enum{EXTENSION};

# LWLocks: the low bits are the tranche id.
my $lw = $base{LWLOCK};
my $lwlist = slurp("$inc/storage/lwlocklist.h");
my $lwnames = slurp("$inc/storage/lwlocknames.h") // die "$0: no storage/lwlocknames.h\n";
if (defined $lwlist)
{
	while ($lwlist =~ /^PG_LWLOCK\(\s*(\d+)\s*,\s*(\w+)\s*\)/mg) { add($lw + $1, $2); }
}
else
{
	while ($lwnames =~ /^#define\s+(\w+)Lock\s+\(&MainLWLockArray\[(\d+)\]\.lock\)/mg) { add($lw + $2, $1); }
}
$lwnames =~ /#define\s+NUM_INDIVIDUAL_LWLOCKS\s+(\d+)/ or die "$0: no NUM_INDIVIDUAL_LWLOCKS\n";
my $tranche = $1;
my $lwlock_h = slurp("$inc/storage/lwlock.h") // die "$0: no storage/lwlock.h\n";
$lwlock_h =~ /typedef\s+enum\s+BuiltinTrancheIds\s*\{(.*?)\}/s or die "$0: no BuiltinTrancheIds\n";
my $tbody = $1;
$tbody =~ s{/\*.*?\*/}{}sg;
for my $item (split /,/, $tbody)
{
	$item =~ s/^\s+|\s+$//g;
	next if $item eq '';
	$item =~ /^LWTRANCHE_(\w+)/ or die "$0: unexpected tranche '$item'\n";
	last if $1 eq 'FIRST_USER_DEFINED';
	add($lw + $tranche, display_name($1));
	$tranche++;
}

# Locks: the low bits are the lock tag type (names of lockfuncs.c).
my %locktag = (RELATION => 'relation', RELATION_EXTEND => 'extend',
	DATABASE_FROZEN_IDS => 'frozenid', PAGE => 'page', TUPLE => 'tuple',
	TRANSACTION => 'transactionid', VIRTUALTRANSACTION => 'virtualxid',
	SPECULATIVE_TOKEN => 'spectoken', OBJECT => 'object', USERLOCK => 'userlock',
	ADVISORY => 'advisory', APPLY_TRANSACTION => 'applytransaction');
my $lock_h = slurp("$inc/storage/lock.h") // die "$0: no storage/lock.h\n";
$lock_h =~ /typedef\s+enum\s+LockTagType\s*\{(.*?)\}/s or die "$0: no LockTagType\n";
my $lbody = $1;
$lbody =~ s{/\*.*?\*/}{}sg;
my $ltype = 0;
for my $item (split /,/, $lbody)
{
	$item =~ s/^\s+|\s+$//g;
	next if $item eq '';
	$item =~ /^LOCKTAG_(\w+)$/ && exists $locktag{$1} or die "$0: unknown lock tag '$item'\n";
	add($base{LOCK} + $ltype++, $locktag{$1});
}

print STDERR "$tag: left as hex: $_\n" for @warnings;

print "/*\n * wait_event_names_$tag.c\n *\t\tWait event names of PostgreSQL $tag, generated by\n";
print " *\t\tanalysis/names/gen_wait_event_names.pl from that server's headers.\n";
print " *\t\tDo not edit: run `make -C analysis names` to regenerate.\n */\n";
print "#include \"analysis/wait_event.h\"\n\n";
print "const pgwt_event_name pgwt_event_names_$tag\[\] = {\n";
for my $id (sort { $a <=> $b } keys %names) { printf "\t{0x%08X, \"%s\"},\n", $id, $names{$id}; }
print "};\n\nconst unsigned pgwt_event_names_${tag}_count = ", scalar(keys %names), ";\n";
